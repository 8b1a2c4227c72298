import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPolicySet, decide, loadPolicy, type CompiledPolicy, type EngineDecision } from '../../src';
import { policyXml } from '../support/policies';

/** The shape of the case files; see README.md beside this file. */
interface ConformanceCase {
  name: string;
  spec: string;
  policies: Array<{ id: string; body: string[] } | { xml: string[] }>;
  defaultDecision?: 'allow' | 'inhibit';
  events?: Array<{ action?: string; parameters?: Record<string, unknown>; expect: ExpectedDecision }>;
  refused?: ExpectedDiagnostic[];
}

interface ExpectedDecision {
  allowed: boolean;
  decided?: boolean;
  delayMs?: number;
  modifiers?: object[];
  executions?: object[];
  matchedPolicies?: string[];
  errors?: number;
}

interface ExpectedDiagnostic {
  code: string;
  line?: number;
  column?: number;
  message?: string;
  messageIncludes?: string;
}

const CASES_DIRECTORY = join(__dirname, 'cases');

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

function checkDecision(actual: EngineDecision, expected: ExpectedDecision): void {
  expect(actual.allowed).toBe(expected.allowed);
  if (expected.decided !== undefined) expect(actual.decided).toBe(expected.decided);
  if (expected.delayMs !== undefined) expect(actual.delayMs).toBe(expected.delayMs);
  if (expected.modifiers !== undefined) expect(actual.modifiers).toMatchObject(expected.modifiers);
  if (expected.executions !== undefined) expect(actual.executions).toMatchObject(expected.executions);
  if (expected.matchedPolicies !== undefined) expect(actual.matchedPolicies).toEqual(expected.matchedPolicies);
  if (expected.errors !== undefined) expect(actual.errors).toHaveLength(expected.errors);
}

describe('conformance', () => {
  const cases = loadCases();

  it('has cases to run', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
  });

  it.each(cases)('%s', (_, item) => {
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
    const set = createPolicySet(policies);
    (item.events ?? []).forEach((entry, index) => {
      const decision = decide(
        set,
        {
          action: entry.action ?? 'urn:action:acme:act',
          timestamp: 0,
          parameters: new Map(Object.entries(entry.parameters ?? {})),
        },
        { defaultDecision: item.defaultDecision ?? 'allow', timeZone: 'UTC' },
      );
      try {
        checkDecision(decision, entry.expect);
      } catch (error) {
        // Name the event: a case holds several and jest would only name the case.
        const message = error instanceof Error ? error.message : String(error);
        throw new Error(`event #${index} ${JSON.stringify(entry.parameters ?? {})}\n${message}\nactual: ${JSON.stringify(decision)}`);
      }
    });
  });
});
