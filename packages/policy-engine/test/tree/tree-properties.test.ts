import fc from 'fast-check';
import { loadPolicyTree, type PolicyTree } from '../../src';
import { readValidPolicy } from '../../src/tree/read-tree';
import { serializeValidPolicy } from '../../src/tree/serialize-tree';
import { policyXml } from '../support/policies';
import { compileBothWays, play, type Scenario } from './differential-play';

/**
 * Properties of the tree codec on generated policies that use every kind of expression: a policy compiled from its
 * tree (after a trip through JSON text) decides as the one compiled from XML — same decisions and explanations,
 * same questions to the same ports — and a tree read back and written again is the tree it was.
 */
const ACT = 'urn:action:acme:act';
const OTHER = 'urn:action:acme:other';

const pick = <T>(...values: T[]) => fc.constantFrom(...values);
const join = (parts: string[]) => parts.join('');

const occurrence = fc
  .tuple(pick(ACT, OTHER), fc.option(pick('a', 'b'), { nil: undefined }))
  .map(([action, filter]) => (filter === undefined ? `<eventOccurrence event="${action}"/>` : `<eventOccurrence event="${action}"><parameter:string name="s" value="${filter}"/></eventOccurrence>`));
const when = fc.oneof(
  pick('today', 'thisHour', 'lastMinute', 'thisWeek', 'always').map((fixed) => `<when fixedTime="${fixed}"/>`),
  fc
    .tuple(pick('*.*.* -1:*', '*.*.* 08:00', '*.*.-1 *:*:00', '01.01.2025 00:00'), fc.option(pick('*.*.* *:*', '*.*.* +1:*'), { nil: undefined }))
    .map(([start, end]) => `<when><start time="${start}"/>${end === undefined ? '' : `<end time="${end}"/>`}</when>`),
  occurrence.map((first) => `<when><start>${first.replace('<eventOccurrence ', '<eventOccurrence mode="FIRST" ')}</start></when>`),
);
const boundedWhen = pick('<when><start time="*.*.* -2:*"/></when>', '<when fixedTime="today"/>', '<when><start time="*.*.-1 *:*"/><end time="*.*.* *:*"/></when>');

/** Expressions by result type, depth-limited; every kind of the tree appears. */
const expressions = fc.letrec<Record<'boolean' | 'number' | 'string' | 'list', string>>((tie) => ({
  boolean: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    pick('<constant:true/>', '<constant:false/>', '<variable:boolean reference="flag"/>', '<event:boolean eventParameter="b" default="false"/>'),
    fc.tuple(pick('and', 'or'), fc.boolean(), fc.array(tie('boolean'), { minLength: 1, maxLength: 3 })).map(
      ([name, eager, operands]) => `<${name}${eager ? ' mode="EAGER"' : ''}>${join(operands)}</${name}>`,
    ),
    fc.array(tie('boolean'), { minLength: 1, maxLength: 3 }).map((operands) => `<xor>${join(operands)}</xor>`),
    tie('boolean').map((operand) => `<not>${operand}</not>`),
    fc.tuple(tie('boolean'), tie('boolean')).map(([premise, conclusion]) => `<implies>${premise}${conclusion}</implies>`),
    fc.tuple(pick('less', 'lessEqual', 'greater', 'greaterEqual'), fc.array(tie('number'), { minLength: 2, maxLength: 3 })).map(
      ([name, operands]) => `<${name}>${join(operands)}</${name}>`,
    ),
    fc.array(fc.oneof(tie('number'), tie('string'), tie('list')), { minLength: 2, maxLength: 3 }).map((operands) => `<equals>${join(operands)}</equals>`),
    fc.tuple(pick('^a+$', '[ab]', 'x\\d'), pick('ALL', 'NONE', 'EXACTLY_ONE'), fc.array(tie('string'), { minLength: 1, maxLength: 2 })).map(
      ([regex, mode, operands]) => `<regex regex="${regex}" mode="${mode}">${join(operands)}</regex>`,
    ),
    fc.tuple(tie('list'), pick('ALL', 'AT_LEAST_ONE'), fc.array(fc.oneof(tie('number'), tie('string')), { minLength: 1, maxLength: 2 })).map(
      ([list, mode, items]) => `<contains mode="${mode}">${list}${join(items)}</contains>`,
    ),
    pick('b', 'zz').map((name) => `<eventHasParameter mode="AT_LEAST_ONE"><constant:string value="${name}"/></eventHasParameter>`),
    pick('<date is="after" value="31.12.2024"/>', '<time is="before" value="12:30"/>', '<day value="monday,wednesday,sunday"/>'),
    fc
      .tuple(occurrence, boundedWhen, pick('', ' minOccurrences="0"', ' minOccurrences="2" maxOccurrences="5"'))
      .map(([events, span, counts]) => `<continuousOccurrence interval="1h"${counts}>${events}${span}</continuousOccurrence>`),
    tie('string').map((value) => `<execute action="urn:action:acme:check"><parameter:string name="v">${value}</parameter:string></execute>`),
    fc.tuple(pick('n', 'm'), tie('number')).map(([id, watched]) => `<valueChanged:number id="${id}">${watched}</valueChanged:number>`),
    tie('string').map((watched) => `<valueChanged:string id="s" to="on">${watched}</valueChanged:string>`),
  ),
  number: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    pick('0', '2', '-1.5', '1e3').map((value) => `<constant:number value="${value}"/>`),
    pick('<event:number eventParameter="n" default="1"/>', '<event:number eventParameter="o" jsonPathQuery="$.k" default="0"/>', '<variable:number reference="limit"/>'),
    fc.tuple(pick('plus', 'minus', 'multiply', 'divide'), fc.array(tie('number'), { minLength: 2, maxLength: 3 })).map(
      ([name, operands]) => `<${name}>${join(operands)}</${name}>`,
    ),
    fc.oneof(tie('string'), tie('list')).map((operand) => `<size>${operand}</size>`),
    fc.tuple(occurrence, when).map(([events, span]) => `<count>${events}${span}</count>`),
    fc
      .tuple(pick('', ' ttl="5m"'), tie('string'))
      .map(([ttl, parameter]) => `<pip:number method="urn:info:acme:score" default="-1"${ttl}><parameter:string name="p">${parameter}</parameter:string></pip:number>`),
  ),
  string: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    pick('', 'a', 'ab', 'x1').map((value) => `<constant:string value="${value}"/>`),
    pick('<event:string eventParameter="s" default="d"/>', '<event:string eventParameter="o" jsonPathQuery="$[\'name\']" default=""/>'),
    fc.array(fc.oneof(tie('string'), tie('number'), tie('boolean')), { minLength: 1, maxLength: 3 }).map((operands) => `<concat>${join(operands)}</concat>`),
    pick('<pip:string method="urn:info:acme:name" default="none"/>'),
  ),
  list: pick(
    `<constant:list value="['a', 1]"/>`,
    '<constant:list value="[]"/>',
    '<event:list eventParameter="l" default="[1]"/>',
    '<event:list eventParameter="o" jsonPathQuery="$.items[*]" default="[]"/>',
  ),
}));

const decision = fc
  .tuple(
    pick('<allow/>', '<inhibit reason="no"/>', '', 'modify'),
    pick('', '<delay amount="2" unit="SECONDS"/>', '<delay amount="0.5" unit="MILLISECONDS"/>'),
    fc.option(expressions.string, { nil: undefined }),
  )
  .map(([verdict, delay, logged]) => {
    const head =
      verdict === 'modify'
        ? `<modify eventParameter="o" method="replace" jsonPathQuery="$.k" reason="masked"><parameter:number name="replaceWith" value="0"/></modify>`
        : verdict;
    const execute = logged === undefined ? '' : `<execute action="urn:action:acme:log"><parameter:string name="v">${logged}</parameter:string><parameter:number name="n" value="3"/></execute>`;
    return `${head}${delay}${execute}`;
  });

const mechanism = fc
  .tuple(pick(ACT, OTHER), fc.array(fc.tuple(expressions.boolean, decision), { minLength: 1, maxLength: 3 }), fc.option(decision, { nil: undefined }), fc.boolean())
  .map(([action, branches, otherwise, always]) => {
    const chain = branches.map(([condition, then], index) => {
      const name = index === 0 ? 'if' : 'elseif';
      return `<${name}>${condition}<then>${then}</then></${name}>`;
    });
    const rest = `${otherwise === undefined ? '' : `<else>${otherwise}</else>`}${always ? '<execute action="urn:action:acme:audit"/>' : ''}`;
    return `<mechanism event="${action}">${join(chain)}${rest}</mechanism>`;
  });

const flag = pick(
  '<greater><event:number eventParameter="n" default="0"/><variable:number reference="limit"/></greater>',
  '<count><eventOccurrence event="urn:action:acme:act"/><when fixedTime="today"/></count>'.replace(/^/, '<less>').concat('<variable:number reference="limit"/></less>'),
  '<constant:true/>',
);

/** Each `valueChanged` gets an id of its own, as the language asks. */
const ownIds = (xml: string): string => {
  let next = 0;
  return xml.replace(/<valueChanged:(\w+) id="\w+"/g, (_, type: string) => `<valueChanged:${type} id="v${next++}"`);
};

const policy = fc.tuple(flag, fc.array(mechanism, { minLength: 1, maxLength: 2 })).map(([condition, mechanisms]) =>
  ownIds(
    policyXml(
      '<variableDeclaration:number name="limit"><constant:number value="3"/></variableDeclaration:number>' +
        `<variableDeclaration:boolean name="flag">${condition}</variableDeclaration:boolean>` +
        join(mechanisms),
    ),
  ),
);

const parameters = fc.record({
  b: fc.boolean(),
  n: fc.integer({ min: -2, max: 4 }),
  s: pick('a', 'b', 'ab', 'x1'),
  o: fc.record({ k: fc.integer({ min: 0, max: 3 }), name: pick('a', 'zz'), items: fc.array(pick<number | string>(1, 'a'), { maxLength: 2 }) }),
  l: fc.array(pick<number | string>(1, 'a', 'b'), { maxLength: 3 }),
});

const NOW = Date.parse('2025-01-15T12:00:00Z');
const scenario = fc
  .tuple(
    fc.array(policy, { minLength: 1, maxLength: 2 }),
    fc.array(fc.record({ action: pick(ACT, OTHER), at: fc.integer({ min: NOW - 3 * 3_600_000, max: NOW - 1 }), parameters: fc.record({ s: pick('a', 'b') }) }), {
      maxLength: 6,
    }),
    fc.array(fc.record({ action: pick(ACT, OTHER), parameters, explain: fc.boolean(), offset: fc.integer({ min: 0, max: 60_000 }) }), { minLength: 1, maxLength: 3 }),
    fc.boolean(),
  )
  .map(
    ([xml, history, events, ports]): Scenario => ({
      xml: xml.map((text, index) => text.replace('urn:policy:acme:test', `urn:policy:acme:p${index}`)),
      defaultDecision: 'allow',
      timeZone: 'Europe/Berlin',
      ports,
      history,
      pip: [{ method: 'urn:info:acme:score', value: 7 }, { method: 'urn:info:acme:name', value: 'ab' }],
      pxp: [{ action: 'urn:action:acme:check', answer: true }],
      events: events.map((event) => ({ action: event.action, timestamp: NOW + event.offset, now: NOW + event.offset, parameters: event.parameters, explain: event.explain })),
    }),
  );

describe('the tree codec', () => {
  it('parse → tree → compile decides as parse → compile', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (generated) => {
        const { fromXml, fromTree } = compileBothWays(generated.xml);
        const viaXml = await play(generated, fromXml);
        const viaTree = await play(generated, fromTree);
        expect(viaTree).toEqual(viaXml);
      }),
      { numRuns: 150 },
    );
  });

  it('tree → JSON → tree is the identity', () => {
    fc.assert(
      fc.property(policy, (xml) => {
        const loaded = loadPolicyTree(xml);
        if (!loaded.ok) throw new Error(`refused: ${JSON.stringify(loaded.diagnostics)}`);
        const text = JSON.stringify(loaded.tree);
        const again = serializeValidPolicy(readValidPolicy((JSON.parse(text) as PolicyTree).policy));
        // The same text, key order included: what pap stored before reads and writes back unchanged.
        expect(JSON.stringify(again)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it('generates policies the engine accepts, with every kind of expression', () => {
    const kinds = new Set<string>();
    const collect = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(collect);
      else if (typeof value === 'object' && value !== null) {
        const { kind, type } = value as { kind?: unknown; type?: unknown };
        if (typeof kind === 'string' && typeof type === 'string') kinds.add(kind);
        Object.values(value).forEach(collect);
      }
    };
    for (const xml of fc.sample(policy, { numRuns: 300, seed: 21 })) {
      const loaded = loadPolicyTree(xml);
      if (!loaded.ok) throw new Error(`refused: ${JSON.stringify(loaded.diagnostics)}\n${xml}`);
      collect(loaded.tree.policy);
    }
    expect([...kinds].sort()).toEqual(
      ['and', 'arithmetic', 'comparison', 'concat', 'constant', 'contains', 'continuousOccurrence', 'count', 'date', 'day', 'equals', 'event', 'eventHasParameter', 'execute', 'implies', 'not', 'or', 'pip', 'regex', 'size', 'time', 'valueChanged', 'variable', 'xor'].sort(),
    );
  });
});
