import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createPolicySet,
  decide,
  loadPolicy,
  type CompiledPolicy,
  type EvaluationPorts,
} from '../../src';
import { policyXml } from '../support/policies';
import { FixturePip, FixturePxp, fixedClock, type PipFixture, type PxpFixture } from '../support/ports';
import { checkDecision, historyOf, instant, type ExpectedDecision as ScenarioExpectation, type RecordedEvent } from '../support/scenario';

/** The shape of the case files; see README.md beside this file. */
interface ConformanceCase {
  name: string;
  spec: string;
  policies: Array<{ id: string; body: string[] } | { xml: string[] }>;
  defaultDecision?: 'allow' | 'inhibit';
  timeZone?: string;
  now?: string | number;
  ports?: boolean;
  history?: RecordedEvent[];
  pip?: PipFixture[];
  pxp?: PxpFixture[];
  events?: ConformanceEvent[];
  refused?: ExpectedDiagnostic[];
}

interface ConformanceEvent {
  action?: string;
  parameters?: Record<string, unknown>;
  timestamp?: string | number;
  now?: string | number;
  explain?: boolean;
  expect: ExpectedDecision;
}

interface ExpectedDecision extends ScenarioExpectation {
  allowed: boolean;
  pipCalls?: number;
  pxpCalls?: object[];
  historyCalls?: string[];
  synchronous?: boolean;
}

interface ExpectedDiagnostic {
  code: string;
  line?: number;
  column?: number;
  message?: string;
  messageIncludes?: string;
}

const CASES_DIRECTORY = join(__dirname, 'cases');
const DEFAULT_ACTION = 'urn:action:acme:act';

function loadCases(): Array<[string, ConformanceCase]> {
  return readdirSync(CASES_DIRECTORY)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .flatMap((file) => {
      const cases = JSON.parse(readFileSync(join(CASES_DIRECTORY, file), 'utf8')) as ConformanceCase[];
      return cases.map((item): [string, ConformanceCase] => [`${file}: ${item.name}`, checkShape(file, item)]);
    });
}

/** A malformed case must fail loudly, not pass by asserting nothing. */
function checkShape(file: string, item: ConformanceCase): ConformanceCase {
  const where = `${file}: ${item.name ?? '(unnamed case)'}`;
  if (typeof item.name !== 'string' || typeof item.spec !== 'string') throw new Error(`${where}: needs name and spec`);
  if (!Array.isArray(item.policies) || item.policies.length === 0) throw new Error(`${where}: needs policies`);
  const hasEvents = Array.isArray(item.events) && item.events.length > 0;
  const hasRefusal = Array.isArray(item.refused) && item.refused.length > 0;
  if (hasEvents === hasRefusal) throw new Error(`${where}: needs either events or refused, not both`);
  for (const entry of item.events ?? []) {
    if (typeof entry.expect?.allowed !== 'boolean') throw new Error(`${where}: every event needs expect.allowed`);
  }
  return item;
}

function documentOf(policy: ConformanceCase['policies'][number]): string {
  return 'xml' in policy ? policy.xml.join('\n') : policyXml(policy.body.join('\n'), policy.id);
}

/**
 * Plays the pdp: the history fixture is recorded first; then each event of an action some policy counts is recorded
 * at now before it is decided (policy-language.md §6), except for explanations, which record nothing.
 */
async function runEvents(item: ConformanceCase, policies: CompiledPolicy[]): Promise<void> {
  const set = createPolicySet(policies);
  const historyActions = new Set(policies.flatMap((policy) => policy.historyActions));
  const history = historyOf(item.history, DEFAULT_ACTION);
  const pip = new FixturePip(item.pip ?? []);
  const pxp = new FixturePxp(item.pxp ?? []);
  const caseNow = instant(item.now, 0);
  for (const [index, entry] of (item.events ?? []).entries()) {
    const timestamp = instant(entry.timestamp, caseNow);
    const now = instant(entry.now, item.now === undefined ? timestamp : caseNow);
    const action = entry.action ?? DEFAULT_ACTION;
    const parameters = new Map(Object.entries(entry.parameters ?? {}));
    const explain = entry.explain === true;
    if (historyActions.has(action) && !explain) history.record(action, now, parameters);
    const ports: EvaluationPorts | undefined = item.ports === false ? undefined : { history, pip, pxp, clock: fixedClock(now) };
    const pipBefore = pip.calls.length;
    const pxpBefore = pxp.calls.length;
    const historyBefore = history.calls.length;
    const options = { defaultDecision: item.defaultDecision ?? 'allow', timeZone: item.timeZone ?? 'UTC', explain } as const;
    const answer = decide(set, { action, timestamp, parameters }, options, ports);
    const decision = await answer;
    try {
      if (entry.expect.synchronous !== undefined) expect(answer instanceof Promise).toBe(!entry.expect.synchronous);
      checkDecision(decision, entry.expect);
      if (entry.expect.pipCalls !== undefined) expect(pip.calls.length - pipBefore).toBe(entry.expect.pipCalls);
      if (entry.expect.pxpCalls !== undefined) expect(pxp.calls.slice(pxpBefore)).toMatchObject(entry.expect.pxpCalls);
      if (entry.expect.historyCalls !== undefined) expect(history.calls.slice(historyBefore)).toEqual(entry.expect.historyCalls);
    } catch (error) {
      // Name the event: a case holds several and jest would only name the case.
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`event #${index} ${JSON.stringify(entry.parameters ?? {})}\n${message}\nactual: ${JSON.stringify(decision)}`, { cause: error });
    }
  }
}

describe('conformance', () => {
  const cases = loadCases();

  it('has at least 200 cases', () => {
    expect(cases.length).toBeGreaterThanOrEqual(200);
  });

  it.each(cases)('%s', async (_, item) => {
    const outcomes = item.policies.map((policy) => loadPolicy(documentOf(policy)));
    if (item.refused !== undefined) {
      const [outcome] = outcomes;
      if (outcome === undefined || outcome.ok) throw new Error('expected the policy to be refused, it loaded');
      expect(outcome.diagnostics).toHaveLength(item.refused.length);
      item.refused.forEach((expected, index) => {
        const actual = outcome.diagnostics[index]!;
        const { messageIncludes, ...exact } = expected;
        expect(actual).toMatchObject(exact);
        if (messageIncludes !== undefined) expect(actual.message).toContain(messageIncludes);
      });
      return;
    }
    const policies: CompiledPolicy[] = outcomes.map((outcome) => {
      if (!outcome.ok) throw new Error(`a policy of the case was refused: ${JSON.stringify(outcome.diagnostics, null, 2)}`);
      return outcome.policy;
    });
    await runEvents(item, policies);
  });
});
