import { describePolicyLanguage } from '@custos/policy-engine';
import type { PolicyLanguage } from '@custos/contracts';
import { completionSchema, fetchPolicyLanguage, helpAt } from '../src/web/logic/language';

/** The engine's own description, as pap serves it. */
const language = describePolicyLanguage() as PolicyLanguage;
const schema = completionSchema(language);
const spec = (name: string) => schema.find((element) => element.name === name);

describe('completion from the language description', () => {
  it('offers in a condition every expression, with the family elements by their conventional names', () => {
    const children = spec('if')?.children ?? [];
    expect(children).toEqual(expect.arrayContaining(['and', 'equals', 'event:string', 'constant:true', 'pip:number', 'then']));
    expect(children).not.toContain('mechanism');
    expect(spec('mechanism')?.children).toEqual(['if', 'elseif', 'else', 'execute']);
  });

  it('makes only the root a top element, offers its namespace declarations, and closed attribute values', () => {
    expect(schema.filter((element) => element.top).map((element) => element.name)).toEqual(['policy']);
    const names = (spec('policy')?.attributes ?? []).map((attribute) => (typeof attribute === 'string' ? attribute : attribute.name));
    expect(names).toEqual(expect.arrayContaining(['id', 'xmlns', 'xmlns:event', 'xmlns:variableDeclaration']));
    const unit = spec('delay')?.attributes?.find((attribute) => typeof attribute !== 'string' && attribute.name === 'unit');
    expect(typeof unit === 'object' ? unit.values : undefined).toEqual(['MILLISECONDS', 'SECONDS', 'MINUTES', 'HOURS']);
  });
});

describe('help on hover', () => {
  const text = '<policy id="urn:policy:acme:p">\n  <mechanism event="urn:action:acme:a">\n    <if><event:string eventParameter="x" default=""/>';

  it('explains an element under the pointer, in a start or an end tag', () => {
    const help = helpAt(language, text, text.indexOf('mechanism') + 3);
    expect(help?.title).toBe('mechanism');
    expect(help?.doc).toMatch(/action/);
    expect(helpAt(language, '<if></if>', 7)?.title).toBe('if');
  });

  it('explains an attribute with its element, whether it is required, and the element type in family help', () => {
    const help = helpAt(language, text, text.indexOf('eventParameter') + 2);
    expect(help).toMatchObject({ title: 'event:string eventParameter', note: 'Required.' });
    expect(helpAt(language, text, text.indexOf('event:string') + 2)?.doc).toContain('as string');
  });

  it('says nothing for attribute values, text and unknown names', () => {
    expect(helpAt(language, text, text.indexOf('urn:policy') + 2)).toBeNull();
    expect(helpAt(language, '<equal/>', 3)).toBeNull();
    expect(helpAt(language, '<policy idd="x">', 10)).toBeNull();
  });
});

describe('reading the description', () => {
  it('answers null, not an error, when pap cannot give it', async () => {
    expect(await fetchPolicyLanguage(() => Promise.resolve(new Response('nope', { status: 404 })))).toBeNull();
    expect(await fetchPolicyLanguage(() => Promise.reject(new Error('offline')))).toBeNull();
    const served = await fetchPolicyLanguage((path) => Promise.resolve(new Response(JSON.stringify(path === '/schema/policy-language.json' ? language : {}))));
    expect(served?.elements.length).toBe(language.elements.length);
  });
});
