import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadPolicyTree, type PolicyTree } from '../../src';
import { readValidPolicy } from '../../src/tree/read-tree';
import { serializeValidPolicy } from '../../src/tree/serialize-tree';
import { extractExamples, type DocExample } from '../docs/doc-examples';
import { policyXml } from '../support/policies';
import type { PipFixture, PxpFixture } from '../support/ports';
import { compileBothWays, play, type Scenario } from './differential-play';

/**
 * The tree is a faithful carrier: over the whole conformance corpus and every example of docs/policy-language.md,
 * the policy compiled from its tree (after a trip through JSON text) decides exactly as the one compiled from the
 * XML — same decisions, explanations included, and the same questions to the same ports.
 */

type Time = string | number | undefined;
const instant = (value: Time, fallback: number): number => (value === undefined ? fallback : typeof value === 'number' ? value : Date.parse(value));

interface CaseEvent {
  action?: string;
  parameters?: Record<string, unknown>;
  timestamp?: Time;
  now?: Time;
  explain?: boolean;
}
interface CaseFixtures {
  defaultDecision?: 'allow' | 'inhibit';
  timeZone?: string;
  history?: Array<{ action?: string; at: string | number; parameters?: Record<string, unknown> }>;
  pip?: PipFixture[];
  pxp?: PxpFixture[];
}
interface ConformanceCase extends CaseFixtures {
  name: string;
  policies: Array<{ id: string; body: string[] } | { xml: string[] }>;
  now?: Time;
  ports?: boolean;
  events?: CaseEvent[];
}

const CASES = join(__dirname, '..', 'conformance', 'cases');

function conformanceScenarios(): Array<[string, Scenario]> {
  return readdirSync(CASES)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .flatMap((file) => (JSON.parse(readFileSync(join(CASES, file), 'utf8')) as ConformanceCase[]).map((item) => [`${file}: ${item.name}`, item] as const))
    .filter(([, item]) => item.events !== undefined)
    .map(([name, item]): [string, Scenario] => {
      const caseNow = instant(item.now, 0);
      return [
        name,
        {
          ...fixtures(item, 'urn:action:acme:act'),
          xml: item.policies.map((policy) => ('xml' in policy ? policy.xml.join('\n') : policyXml(policy.body.join('\n'), policy.id))),
          ports: item.ports !== false,
          events: (item.events ?? []).map((event) => {
            const timestamp = instant(event.timestamp, caseNow);
            return {
              action: event.action ?? 'urn:action:acme:act',
              timestamp,
              now: instant(event.now, item.now === undefined ? timestamp : caseNow),
              parameters: event.parameters ?? {},
              explain: event.explain === true,
            };
          }),
        },
      ];
    });
}

function fixtures(item: CaseFixtures, defaultAction: string): Omit<Scenario, 'xml' | 'ports' | 'events'> {
  return {
    defaultDecision: item.defaultDecision ?? 'allow',
    timeZone: item.timeZone ?? 'UTC',
    history: (item.history ?? []).map((entry) => ({ action: entry.action ?? defaultAction, at: instant(entry.at, 0), parameters: entry.parameters ?? {} })),
    pip: item.pip ?? [],
    pxp: item.pxp ?? [],
  };
}

const DOCS_ACTION = 'urn:action:shop:order';
const DOCS_TIMESTAMP = Date.parse('2025-01-15T12:00:00Z');

/** The policy document of an example, wrapped as docs/policy-language.test.ts wraps it. */
function documentOf(example: DocExample): string {
  const id = `urn:policy:shop:${example.name}`;
  if (example.kind === 'example-fragment') return policyXml(example.xml, id);
  if (example.kind === 'example-condition') {
    return policyXml(`<mechanism event="${DOCS_ACTION}"><if>\n${example.xml}\n<then><allow/></then></if><else><inhibit/></else></mechanism>`, id);
  }
  return example.xml;
}

function docsScenarios(): Array<[string, Scenario]> {
  const markdown = readFileSync(join(__dirname, '..', '..', '..', '..', 'docs', 'policy-language.md'), 'utf8');
  const examples = extractExamples(markdown).examples.filter((example) => ['example', 'example-fragment', 'example-condition'].includes(example.kind));
  const byName = new Map(examples.map((example) => [example.name, example]));
  return examples.flatMap((example) => {
    const decided = example.decisions as Array<CaseFixtures & CaseEvent & { with?: string[]; events?: CaseEvent[] }>;
    // An example without a scenario is still played once, with an event of its action and no parameters.
    const scenarios = decided.length > 0 ? decided : [{}];
    return scenarios.map((scenario, index): [string, Scenario] => {
      const events = scenario.events ?? [scenario];
      return [
        `${example.name} #${index}`,
        {
          ...fixtures(scenario, DOCS_ACTION),
          xml: [example, ...(scenario.with ?? []).map((name) => byName.get(name) ?? example)].map(documentOf),
          ports: true,
          events: events.map((event) => {
            const timestamp = instant(event.timestamp, DOCS_TIMESTAMP);
            return { action: event.action ?? DOCS_ACTION, timestamp, now: instant(event.now, timestamp), parameters: event.parameters ?? {}, explain: false };
          }),
        },
      ];
    });
  });
}

async function expectSameBothWays(scenario: Scenario): Promise<void> {
  const { fromXml, fromTree } = compileBothWays(scenario.xml);
  const viaXml = await play(scenario, fromXml);
  const viaTree = await play(scenario, fromTree);
  expect(viaTree).toEqual(viaXml);
}

describe('policies compiled from their trees decide as those compiled from XML', () => {
  const conformance = conformanceScenarios();
  const docs = docsScenarios();

  it('covers the corpus', () => {
    // Every conformance case with events (the others are refusals) and every example that is a policy.
    expect(conformance.length).toBeGreaterThanOrEqual(150);
    expect(docs.length).toBeGreaterThanOrEqual(30);
  });

  it.each(conformance)('conformance %s', async (_, scenario) => expectSameBothWays(scenario));
  it.each(docs)('docs %s', async (_, scenario) => expectSameBothWays(scenario));

  it.each([...conformance, ...docs])('the tree read back is the tree written: %s', (_, scenario) => {
    for (const xml of scenario.xml) {
      const loaded = loadPolicyTree(xml);
      if (!loaded.ok) throw new Error('refused');
      const text = JSON.stringify(loaded.tree);
      // Nothing is lost to JSON (no undefined, Infinity, Map or class instance in the written form).
      expect(JSON.parse(text)).toEqual(loaded.tree);
      const again: PolicyTree = serializeValidPolicy(readValidPolicy((JSON.parse(text) as PolicyTree).policy));
      expect(again).toEqual(loaded.tree);
    }
  });
});
