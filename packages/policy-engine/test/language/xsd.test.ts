import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseXml, type Document, type Element } from 'libxmljs2';
import { describePolicyLanguage, loadPolicy, loadTimer, mainSchemaFile, policySchemaFiles, SCHEMA_VERSIONS, TIMER_NAMESPACE, type SchemaVersion } from '../../src';
import { timerSchemaFile } from '../../src/language/timer-xsd';
import { TIMER_ATTRIBUTES } from '../../src/timer/timer-xml';
import { CATALOGUE } from '../../src/ast/catalogue';
import { canonicalNamespace, KNOWN_NAMESPACES } from '../../src/parse/namespaces';
import { attributeRulesOf } from '../../src/validate/attribute-rules';
import { policyXml } from '../support/policies';
import { repositoryPolicies, repositoryTimers } from './corpus';

/**
 * The XSD an editor gets is generated from the engine's tables; these tests hold it to what the engine does:
 * every policy of the repository the engine accepts is valid against it, every element and attribute the engine
 * knows is declared in it with its help text, and structural mistakes the engine refuses are refused by it too.
 */

const XS = { xs: 'http://www.w3.org/2001/XMLSchema' };
let folder: string;
const schemas = new Map<SchemaVersion, Document>();
const timerSchemas = new Map<SchemaVersion, Document>();
/** Every generated file, parsed, by its path (`4.0/event.xsd`). */
const files = new Map<string, Document>();

beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'custos-xsd-'));
  for (const version of SCHEMA_VERSIONS) {
    for (const file of policySchemaFiles(version)) {
      const path = join(folder, file.path);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, file.text);
      files.set(file.path, parseXml(file.text));
    }
    const main = join(folder, version, mainSchemaFile(version));
    // libxml2 reads the imported family schemas from beside the main file.
    schemas.set(version, parseXml(policySchemaFiles(version)[0]?.text ?? '', { baseUrl: main }));
    const timer = join(folder, version, timerSchemaFile(version));
    timerSchemas.set(version, parseXml(files.get(`${version}/${timerSchemaFile(version)}`)?.toString() ?? '', { baseUrl: timer }));
  }
});

afterAll(() => rmSync(folder, { recursive: true, force: true }));

/**
 * Errors of a document against the schema of its version. The engine also reads documents that mix 3.2.46 and 4.0
 * namespaces, which no one schema describes: those are checked in the engine's own reading, as 4.0.
 */
function schemaErrors(written: string): string[] {
  const old = /http:\/\/www\.iese\.fraunhofer\.de\/ind2uce\/3\.2\.46\/\w+/g;
  const mixed = old.test(written) && written.includes('http://www.mydata-control.de/4.0/');
  const xml = mixed ? written.replace(old, canonicalNamespace) : written;
  const version: SchemaVersion = xml.includes('ind2uce/3.2.46') ? '3.2.46' : '4.0';
  const schema = schemas.get(version);
  if (schema === undefined) throw new Error(`no schema for ${version}`);
  const document = parseXml(xml);
  return document.validate(schema) ? [] : document.validationErrors.map((error) => `${error.line ?? '?'}: ${error.message.trim()}`);
}

function timerErrors(xml: string): string[] {
  const schema = timerSchemas.get(xml.includes('ind2uce/3.2.46') ? '3.2.46' : '4.0');
  if (schema === undefined) throw new Error('no timer schema');
  const document = parseXml(xml);
  return document.validate(schema) ? [] : document.validationErrors.map((error) => `${error.line ?? '?'}: ${error.message.trim()}`);
}

function declaration(path: string, xpath: string): Element | null {
  const document = files.get(path);
  if (document === undefined) throw new Error(`no file ${path}`);
  return document.get(xpath, XS) as Element | null;
}

const documentation = (node: Element | null): string => (node?.get('xs:annotation/xs:documentation', XS) as Element | null)?.text() ?? '';

describe('the policy XSD', () => {
  it('accepts every policy of the repository that Custos accepts', () => {
    const accepted = repositoryPolicies().filter((policy) => loadPolicy(policy.xml).ok);
    const failures = accepted.map((policy) => ({ where: policy.where, errors: schemaErrors(policy.xml) })).filter((each) => each.errors.length > 0);
    expect(failures).toEqual([]);
    // Examples, conformance cases and test documents in both namespace versions: the check is not vacuous.
    expect(accepted.length).toBeGreaterThan(200);
    expect(accepted.some((policy) => policy.xml.includes('ind2uce/3.2.46'))).toBe(true);
  });

  it('declares every element and attribute the engine knows, with help text, in its namespace', () => {
    const missing: string[] = [];
    for (const version of SCHEMA_VERSIONS) {
      for (const [name, info] of CATALOGUE) {
        const [path, owner] =
          info.family === null
            ? [`${version}/${mainSchemaFile(version)}`, `/xs:schema/xs:complexType[@name="${name}"]`]
            : [`${version}/${info.family}.xsd`, `/xs:schema/xs:element[@name="${name.slice(info.family.length + 1)}"]/xs:complexType`];
        const type = declaration(path, owner);
        if (type === null) {
          missing.push(`${version} element ${name}`);
          continue;
        }
        for (const [attribute, rule] of attributeRulesOf(info.name)) {
          const declared = type.get(`xs:attribute[@name="${attribute}"]`, XS) as Element | null;
          if (declared === null) missing.push(`${version} ${name}@${attribute}`);
          else if ((declared.attr('use')?.value() === 'required') !== rule.required) missing.push(`${version} ${name}@${attribute} use`);
          else if (documentation(declared) === '') missing.push(`${version} ${name}@${attribute} help`);
        }
        const attributes = type.find('xs:attribute', XS) as Element[];
        if (attributes.length !== attributeRulesOf(info.name).size) missing.push(`${version} ${name}: attributes the engine does not know`);
      }
    }
    expect(missing).toEqual([]);
    // The 4.0 files are exactly the namespaces the engine knows.
    const namespaces = [...files].filter(([path]) => path.startsWith('4.0/') && path.endsWith('.xsd')).map(([, document]) => document.root()?.attr('targetNamespace')?.value());
    expect(namespaces.sort()).toEqual([...KNOWN_NAMESPACES, TIMER_NAMESPACE].sort());
  });

  it('comes with a catalog that names, for each namespace, the file declaring it', () => {
    for (const version of SCHEMA_VERSIONS) {
      const entries = (files.get(`${version}/catalog.xml`)?.find('//c:uri', { c: 'urn:oasis:names:tc:entity:xmlns:xml:catalog' }) ?? []) as Element[];
      expect(entries).toHaveLength(9);
      for (const entry of entries) {
        const file = files.get(`${version}/${entry.attr('uri')?.value() ?? ''}`);
        expect(file?.root()?.attr('targetNamespace')?.value()).toBe(entry.attr('name')?.value());
      }
    }
  });

  it('gives every element declaration the help of the language description', () => {
    const mechanism = describePolicyLanguage().elements.find((element) => element.name === 'mechanism');
    const declared = declaration('4.0/mydataLanguage.xsd', '//xs:element[@name="mechanism"]');
    expect(documentation(declared)).toBe(mechanism?.doc);
    const undocumented = [...files].flatMap(([path, document]) =>
      (document.find('//xs:element[@name]', XS) as Element[]).filter((element) => documentation(element) === '').map((element) => `${path} ${element.attr('name')?.value()}`),
    );
    expect(undocumented).toEqual([]);
  });

  it('accepts every timer of the repository that Custos accepts, and declares the timer attributes the reader knows', () => {
    const accepted = repositoryTimers().filter((timer) => loadTimer(timer.xml).ok);
    const failures = accepted.map((timer) => ({ where: timer.where, errors: timerErrors(timer.xml) })).filter((each) => each.errors.length > 0);
    expect(failures).toEqual([]);
    expect(accepted.length).toBeGreaterThan(2);
    for (const [element, known] of Object.entries(TIMER_ATTRIBUTES)) {
      for (const [name, required] of Object.entries(known)) {
        const declared = declaration(`4.0/${timerSchemaFile('4.0')}`, `//xs:*[@name="${element}"]//xs:attribute[@name="${name}"]`);
        expect({ element, name, use: declared?.attr('use')?.value() ?? 'optional' }).toEqual({ element, name, use: required ? 'required' : 'optional' });
      }
    }
    const missingCron = `<timer xmlns="${TIMER_NAMESPACE}" id="urn:timer:acme:t"><event action="urn:action:acme:a"/></timer>`;
    expect(loadTimer(missingCron).ok).toBe(false);
    expect(timerErrors(missingCron).join('\n')).toContain('cron');
  });

  it.each([
    ['an unknown element', '<mechanism event="urn:action:acme:act"><if><equal><constant:true/><constant:true/></equal><then><allow/></then></if></mechanism>', 'equal'],
    ['a missing required attribute', '<mechanism><if><constant:true/><then><allow/></then></if></mechanism>', 'event'],
    ['an unknown attribute', '<mechanism event="urn:action:acme:act" even="x"><if><constant:true/><then><allow/></then></if></mechanism>', 'even'],
    ['children out of order', '<mechanism event="urn:action:acme:act"><else><allow/></else><if><constant:true/><then><allow/></then></if></mechanism>', 'else'],
    ['a value outside a closed list', '<mechanism event="urn:action:acme:act"><if><constant:true/><then><delay amount="1" unit="DAYS"/></then></if></mechanism>', 'DAYS'],
    ['a mechanism without if', '<mechanism event="urn:action:acme:act"><else><allow/></else></mechanism>', 'else'],
  ])('refuses %s, as the engine does', (_, body, named) => {
    const xml = policyXml(body);
    expect(loadPolicy(xml).ok).toBe(false);
    const errors = schemaErrors(xml);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.join('\n')).toContain(named);
  });
});
