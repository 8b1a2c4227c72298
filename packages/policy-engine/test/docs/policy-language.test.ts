import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createPolicySet,
  decide,
  loadPolicy,
  loadTimer,
  type CompiledPolicy,
  type Diagnostic,
  type EvaluationPorts,
} from '../../src';
import { CATALOGUE } from '../../src/ast/catalogue';
import type { ElementNode } from '../../src/ast/nodes';
import { attributeRules } from '../../src/validate/attribute-rules';
import { FixturePip, FixturePxp, fixedClock, type PipFixture, type PxpFixture } from '../support/ports';
import { checkDecision, historyOf, instant, type ExpectedDecision, type RecordedEvent } from '../support/scenario';
import { DEFAULT_ACTION, documentOf, extractExamples, type DocExample } from './doc-examples';

/**
 * Every XML example of docs/policy-language.md, checked against the engine. How examples are marked is described in
 * doc-examples.ts. Wrapping, so a fragment stays small:
 * - `example-fragment`: the content of `<policy id="urn:policy:shop:<example name>">` declaring the conventional
 *   prefixes (constant, event, parameter, pip, variable, variableDeclaration, valueChanged);
 * - `example-condition`: the condition of one mechanism for `urn:action:shop:order` in such a policy, which allows
 *   when the condition is true and inhibits otherwise. Its decide comments may say `"condition": true | false |
 *   "error"` instead of `allowed` (an error inhibits too, with the error recorded).
 * Decide comments hold one scenario: fixtures (`history`, `pip`, `pxp`, `now`, `timeZone`, `defaultDecision`,
 * `with`: names of other examples deployed beside this one) and one event (`action`, `parameters`, `timestamp`,
 * `expect`) or several (`events`), decided in order against one history. Like the pdp, the test records each event
 * of an action some deployed policy counts, at now, before deciding it.
 */

const DOCUMENT = join(__dirname, '..', '..', '..', '..', 'docs', 'policy-language.md');
const FIXTURES = join(__dirname, 'fixtures');
/** Events without a timestamp happen at this instant (a Wednesday); the clock shows the event's timestamp. */
const DEFAULT_TIMESTAMP = Date.parse('2025-01-15T12:00:00Z');

interface Expected extends ExpectedDecision {
  condition?: boolean | 'error';
  pipCalls?: number;
  pxpCalls?: object[];
}

interface ScenarioEvent {
  action?: string;
  parameters?: Record<string, unknown>;
  timestamp?: string | number;
  now?: string | number;
  expect: Expected;
}

interface Scenario extends Partial<ScenarioEvent> {
  with?: string[];
  defaultDecision?: 'allow' | 'inhibit';
  timeZone?: string;
  history?: RecordedEvent[];
  pip?: PipFixture[];
  pxp?: PxpFixture[];
  events?: ScenarioEvent[];
}

function mustLoad(example: DocExample): CompiledPolicy {
  const outcome = loadPolicy(documentOf(example));
  if (!outcome.ok) throw new Error(`example \`${example.name}\` was refused: ${JSON.stringify(outcome.diagnostics, null, 2)}`);
  return outcome.policy;
}

function expectedDecision(expected: Expected): Expected {
  if (expected.condition === undefined) {
    if (typeof expected.allowed !== 'boolean') throw new Error('every expectation needs `allowed` or `condition`');
    return expected;
  }
  if (expected.condition === 'error') return { ...expected, allowed: false, decided: true, errors: 1 };
  return { ...expected, allowed: expected.condition, decided: true, errors: 0 };
}

async function play(example: DocExample, scenario: Scenario, byName: ReadonlyMap<string, DocExample>): Promise<void> {
  const companions = (scenario.with ?? []).map((name) => {
    const other = byName.get(name);
    if (other === undefined) throw new Error(`example \`${example.name}\` is deployed with \`${name}\`, which does not exist`);
    return mustLoad(other);
  });
  const policies = [mustLoad(example), ...companions];
  const set = createPolicySet(policies);
  const recorded = new Set(policies.flatMap((policy) => policy.historyActions));
  const history = historyOf(scenario.history, DEFAULT_ACTION);
  const pip = new FixturePip(scenario.pip ?? []);
  const pxp = new FixturePxp(scenario.pxp ?? []);
  const defaultDecision = scenario.defaultDecision ?? 'allow';
  const events: ScenarioEvent[] = scenario.events ?? [
    {
      ...(scenario.action === undefined ? {} : { action: scenario.action }),
      ...(scenario.parameters === undefined ? {} : { parameters: scenario.parameters }),
      ...(scenario.timestamp === undefined ? {} : { timestamp: scenario.timestamp }),
      ...(scenario.now === undefined ? {} : { now: scenario.now }),
      expect: scenario.expect ?? {},
    },
  ];
  for (const [position, entry] of events.entries()) {
    const timestamp = instant(entry.timestamp, DEFAULT_TIMESTAMP);
    const now = instant(entry.now, timestamp);
    const action = entry.action ?? DEFAULT_ACTION;
    const parameters = new Map(Object.entries(entry.parameters ?? {}));
    if (recorded.has(action)) history.record(action, now, parameters);
    const ports: EvaluationPorts = { history, pip, pxp, clock: fixedClock(now) };
    const pipBefore = pip.calls.length;
    const pxpBefore = pxp.calls.length;
    const decision = await decide(set, { action, timestamp, parameters }, { defaultDecision, timeZone: scenario.timeZone ?? 'UTC' }, ports);
    const expected = expectedDecision(entry.expect);
    try {
      checkDecision(decision, expected);
      if (expected.pipCalls !== undefined) expect(pip.calls.length - pipBefore).toBe(expected.pipCalls);
      if (expected.pxpCalls !== undefined) expect(pxp.calls.slice(pxpBefore)).toMatchObject(expected.pxpCalls);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`event #${position} ${JSON.stringify(entry.parameters ?? {})}\n${message}\nactual: ${JSON.stringify(decision)}`, { cause: error });
    }
  }
}

function expectRefused(example: DocExample, diagnostics: readonly Diagnostic[]): void {
  const code = example.options.get('code');
  const line = example.options.get('line');
  const column = example.options.get('column');
  // The example shows one problem: every diagnostic is of its code, so it is refused for the reason the text gives.
  expect(diagnostics.map((item) => item.code)).toEqual(diagnostics.map(() => code));
  expect(diagnostics.length).toBeGreaterThan(0);
  if (line !== undefined || column !== undefined) {
    expect(diagnostics).toContainEqual(
      expect.objectContaining({
        code,
        ...(line === undefined ? {} : { line: Number(line) }),
        ...(column === undefined ? {} : { column: Number(column) }),
      }),
    );
  }
}

/** The start of an element's start tag: any prefix for the core language; a family element is named with its prefix. */
function tagStart(name: string): string {
  const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return name.includes(':') ? `<${escaped}` : `<(?:[A-Za-z]+:)?${escaped}`;
}

function startTag(name: string): RegExp {
  return new RegExp(`${tagStart(name)}[\\s/>]`);
}

function startTagWith(name: string, attribute: string): RegExp {
  return new RegExp(`${tagStart(name)}\\s[^>]*?\\b${attribute}=`);
}

describe('docs/policy-language.md', () => {
  const { examples, problems } = extractExamples(readFileSync(DOCUMENT, 'utf8'));
  const byName = new Map(examples.map((example) => [example.name, example]));

  it('marks every xml block as an example, with well-formed expectations', () => {
    expect(problems).toEqual([]);
    expect(examples.length).toBeGreaterThanOrEqual(60);
  });

  const policies = examples.filter((example) => ['example', 'example-fragment', 'example-condition'].includes(example.kind));
  it.each(policies.map((example) => [example.name, example] as const))('example %s decides as the text says', async (_, example) => {
    const loaded = loadPolicy(documentOf(example));
    if (!loaded.ok) throw new Error(`refused: ${JSON.stringify(loaded.diagnostics, null, 2)}`);
    for (const scenario of example.decisions as Scenario[]) await play(example, scenario, byName);
  });

  const refused = examples.filter((example) => example.kind === 'example-invalid');
  it.each(refused.map((example) => [example.name, example] as const))('invalid example %s is refused with its code', (_, example) => {
    const outcome = loadPolicy(documentOf(example));
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expectRefused(example, outcome.diagnostics);
  });

  const timers = examples.filter((example) => example.kind === 'example-timer');
  it.each(timers.map((example) => [example.name, example] as const))('timer example %s loads as the text says', (_, example) => {
    const outcome = loadTimer(example.xml);
    if (!outcome.ok) throw new Error(`refused: ${JSON.stringify(outcome.diagnostics, null, 2)}`);
    for (const expected of example.timers) expect(outcome.timer).toMatchObject(expected as object);
  });

  const refusedTimers = examples.filter((example) => example.kind === 'example-timer-invalid');
  it.each(refusedTimers.map((example) => [example.name, example] as const))('invalid timer example %s is refused with its code', (_, example) => {
    const outcome = loadTimer(example.xml);
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expectRefused(example, outcome.diagnostics);
  });

  it('shows every element of the language, constants of every type, and every attribute', () => {
    const valid = policies.map((example) => example.xml).join('\n');
    const missing: string[] = [];
    const seenFamilies = new Set<string>();
    for (const [name, info] of CATALOGUE) {
      const shown = startTag(name).test(valid);
      if (info.family === null || info.family === 'constant') {
        if (!shown) missing.push(`element \`${name}\``);
      } else if (shown) {
        seenFamilies.add(info.family);
      }
      const rules = attributeRules({ name } as unknown as ElementNode);
      for (const attribute of rules?.keys() ?? []) {
        const family = info.family === null || info.family === 'constant' ? null : info.family;
        // One type of a family shows its attributes for all five.
        const candidates = family === null ? [name] : [...CATALOGUE.keys()].filter((other) => other.startsWith(`${family}:`));
        if (!candidates.some((candidate) => startTagWith(candidate, attribute).test(valid))) {
          missing.push(`attribute \`${attribute}\` of \`${family === null ? name : `${family}:*`}\``);
        }
      }
    }
    for (const family of new Set([...CATALOGUE.values()].map((info) => info.family))) {
      if (family !== null && family !== 'constant' && !seenFamilies.has(family)) missing.push(`element \`${family}:*\``);
    }
    expect([...new Set(missing)]).toEqual([]);
  });
});

describe('the example reader', () => {
  const fixture = (name: string) => extractExamples(readFileSync(join(FIXTURES, name), 'utf8'));

  it('reads markers, options and expectations', () => {
    const { examples, problems } = fixture('marked.md');
    expect(problems).toEqual([]);
    expect(examples.map((example) => [example.kind, example.name, Object.fromEntries(example.options)])).toEqual([
      ['example-condition', 'always', {}],
      ['example-invalid', 'broken', { code: 'malformed_xml', line: '1' }],
    ]);
    expect(examples[0]?.decisions).toEqual([{ expect: { condition: true } }, { parameters: { n: 1 }, expect: { condition: true } }]);
    expect(examples[0]?.xml).toBe('<constant:true/>');
  });

  it('refuses an xml block without a marker, so no example goes unchecked', () => {
    expect(fixture('unmarked.md').problems).toEqual([
      'line 5: an xml block without an example marker (`<!-- example: name -->` or another kind)',
    ]);
  });

  it('refuses expectations and markers that belong to no block, and examples that show nothing', () => {
    expect(fixture('orphans.md').problems).toEqual([
      'line 4: `silent` shows no decision (add a `<!-- decide: {...} -->` after the block)',
      'line 8: an expectation that follows no example block',
      'line 10: an example marker that introduces no xml block',
    ]);
  });
});
