import fc from 'fast-check';
import { createPolicySet, decide, loadPolicy, type CompiledPolicy } from '../../src';
import { DECLARATIONS } from '../support/policies';
import { referenceDecide, referenceTree } from './reference';

/**
 * The compiled engine against the reference evaluator (reference.ts) on generated policies and events: same verdict,
 * default, delay, modifiers, executions and number of failed mechanisms. Policies are generated as XML text, so
 * the whole pipeline (reading, validation, compilation) is exercised; only policies the engine accepts are compared.
 */
const ACTION = 'urn:action:acme:act';

const numberText = fc.oneof(fc.integer({ min: -5, max: 5 }).map(String), fc.constantFrom('0.5', '1e3', '-2.25', '1e308'));
const word = fc.constantFrom('', 'a', 'b', 'ab', 'x1', 'A');

/** Expressions by type, depth-limited. */
const tree = fc.letrec<Record<'boolean' | 'number' | 'string' | 'list', string>>((tie) => ({
  boolean: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom('<constant:true/>', '<constant:false/>', '<variable:boolean reference="flag"/>'),
    fc.constantFrom('c', 'b', 'a').map((name) => `<event:boolean eventParameter="${name}" default="false"/>`),
    fc.tuple(fc.constantFrom('and', 'or'), fc.boolean(), fc.array(tie('boolean'), { minLength: 1, maxLength: 3 })).map(
      ([name, eager, children]) => `<${name}${eager ? ' mode="EAGER"' : ''}>${children.join('')}</${name}>`,
    ),
    fc.array(tie('boolean'), { minLength: 1, maxLength: 3 }).map((children) => `<xor>${children.join('')}</xor>`),
    tie('boolean').map((child) => `<not>${child}</not>`),
    fc.tuple(tie('boolean'), tie('boolean')).map(([a, b]) => `<implies>${a}${b}</implies>`),
    fc.tuple(fc.constantFrom('less', 'lessEqual', 'greater', 'greaterEqual'), fc.array(tie('number'), { minLength: 2, maxLength: 3 })).map(
      ([name, children]) => `<${name}>${children.join('')}</${name}>`,
    ),
    fc.array(fc.oneof(tie('number'), tie('string'), tie('boolean')), { minLength: 2, maxLength: 3 }).map((children) => `<equals>${children.join('')}</equals>`),
    fc.tuple(fc.constantFrom('a+', '[ab]*', 'x\\d', '.*'), fc.constantFrom('ALL', 'EXACTLY_ONE', 'AT_LEAST_ONE', 'NONE'), fc.array(tie('string'), { minLength: 1, maxLength: 2 })).map(
      ([pattern, mode, children]) => `<regex regex="${pattern}" mode="${mode}">${children.join('')}</regex>`,
    ),
    fc.tuple(tie('list'), fc.constantFrom('ALL', 'NONE', 'AT_LEAST_ONE'), fc.array(fc.oneof(tie('number'), tie('string')), { minLength: 1, maxLength: 2 })).map(
      ([list, mode, children]) => `<contains mode="${mode}">${list}${children.join('')}</contains>`,
    ),
    fc.array(word, { minLength: 1, maxLength: 2 }).map(
      (names) => `<eventHasParameter>${names.map((name) => `<constant:string value="${name}"/>`).join('')}</eventHasParameter>`,
    ),
  ),
  number: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    numberText.map((text) => `<constant:number value="${text}"/>`),
    fc.constantFrom('n', 'm', 's').map((name) => `<event:number eventParameter="${name}" default="1"/>`),
    fc.constant('<event:number eventParameter="o" jsonPathQuery="$.k" default="0"/>'),
    fc.tuple(fc.constantFrom('plus', 'minus', 'multiply', 'divide'), fc.array(tie('number'), { minLength: 2, maxLength: 3 })).map(
      ([name, children]) => `<${name}>${children.join('')}</${name}>`,
    ),
    fc.oneof(tie('string'), tie('list')).map((child) => `<size>${child}</size>`),
  ),
  string: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    word.map((text) => `<constant:string value="${text}"/>`),
    fc.constantFrom('s', 'n').map((name) => `<event:string eventParameter="${name}" default="d"/>`),
    fc.array(fc.oneof(tie('string'), tie('number'), tie('boolean')), { minLength: 1, maxLength: 3 }).map((children) => `<concat>${children.join('')}</concat>`),
  ),
  list: fc.oneof(
    fc.constantFrom(`<constant:list value="['a', 1, 'ab']"/>`, '<constant:list value="[]"/>'),
    fc.constant('<event:list eventParameter="l" default="[1]"/>'),
    fc.constant('<event:list eventParameter="o" jsonPathQuery="$.items[*]" default="[]"/>'),
  ),
}));

const decision = fc.oneof(
  fc.constant('<allow/>'),
  fc.constant('<inhibit/>'),
  fc.constant(''),
  fc.tuple(tree.number, fc.constantFrom('', '<delay amount="2" unit="SECONDS"/>')).map(
    ([value, delay]) => `<modify eventParameter="p" method="m"><parameter:number name="v">${value}</parameter:number></modify>${delay}`,
  ),
  fc.tuple(fc.constantFrom('<allow/>', '<inhibit/>'), fc.integer({ min: 0, max: 900 })).map(([verdict, amount]) => `${verdict}<delay amount="${amount}" unit="MILLISECONDS"/>`),
  tree.string.map((value) => `<execute action="urn:action:acme:log"><parameter:string name="v">${value}</parameter:string></execute>`),
);

const mechanism = fc
  .tuple(fc.array(fc.tuple(tree.boolean, decision), { minLength: 1, maxLength: 3 }), fc.option(decision), fc.option(tree.string))
  .map(([branches, otherwise, unconditional]) => {
    const parts = branches.map(([condition, then], index) => `<${index === 0 ? 'if' : 'elseif'}>${condition}<then>${then}</then></${index === 0 ? 'if' : 'elseif'}>`);
    if (otherwise !== null) parts.push(`<else>${otherwise}</else>`);
    if (unconditional !== null) parts.push(`<execute action="urn:action:acme:log2"><parameter:string name="u">${unconditional}</parameter:string></execute>`);
    return `<mechanism event="${ACTION}">${parts.join('')}</mechanism>`;
  });

const policy = fc
  .tuple(fc.array(mechanism, { minLength: 1, maxLength: 2 }), tree.boolean, fc.constantFrom('p1', 'p2', 'p3'))
  .map(
    ([mechanisms, flag, name]) =>
      `<policy id="urn:policy:acme:${name}" ${DECLARATIONS}><variableDeclaration:boolean name="flag">${flag.replace(/<variable:boolean reference="flag"\/>/g, "<constant:true/>")}</variableDeclaration:boolean>${mechanisms.join('')}</policy>`,
  );

const eventValue = fc.oneof(
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom('a', 'ab', '2', 'true', 'x1', '', 'false'),
  fc.boolean(),
  fc.constantFrom(null, [1, 'a'], ['ab'], [], { k: 2 }, { k: 'x' }, { items: [1, 'a'] }, 0.5),
);
const parameters = fc.dictionary(fc.constantFrom('a', 'b', 'c', 'n', 'm', 's', 'l', 'o', 'ab'), eventValue, { maxKeys: 6 });

describe('compiled engine = reference evaluator', () => {
  it('on generated policies and events', () => {
    fc.assert(
      fc.property(fc.array(policy, { minLength: 1, maxLength: 3 }), fc.array(parameters, { minLength: 1, maxLength: 3 }), fc.constantFrom('allow', 'inhibit'), (texts, events, defaultDecision) => {
        // Later policies with the same id replace earlier ones, in the set as in the reference.
        const byId = new Map<string, string>();
        for (const text of texts) byId.set(/id="([^"]+)"/.exec(text)![1]!, text);
        const loaded: CompiledPolicy[] = [];
        for (const text of byId.values()) {
          const outcome = loadPolicy(text);
          if (!outcome.ok) throw new Error(`generated policy refused: ${JSON.stringify(outcome.diagnostics)}\n${text}`);
          loaded.push(outcome.policy);
        }
        const set = createPolicySet(loaded);
        const trees = [...byId.values()].map(referenceTree);
        for (const values of events) {
          const event = new Map(Object.entries(values));
          const actual = decide(set, { action: ACTION, timestamp: 0, parameters: event }, { defaultDecision, timeZone: 'UTC' });
          const expected = referenceDecide(trees, ACTION, event, defaultDecision);
          expect({
            allowed: actual.allowed,
            decided: actual.decided,
            delayMs: actual.delayMs,
            modifiers: actual.modifiers.map((modifier) => ({ policyId: modifier.policyId, method: modifier.method, parameters: modifier.parameters })),
            executions: actual.executions,
            errors: actual.errors.length,
          }).toEqual(expected);
        }
      }),
      { numRuns: 300 },
    );
  });
});
