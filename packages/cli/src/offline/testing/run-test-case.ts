import { toAuthorizationDecision } from '@custos/contracts';
import type { EngineDecision, MechanismExplanation, PolicySet } from '@custos/policy-engine';
import { compareOutcome, type Difference } from './compare';
import { playEvent } from './play-event';
import { recordOf, type PxpCall } from './stubs';
import type { ActualOutcome, EventCase, PipStub, PxpStub, TestFile } from './test-file';

export interface CaseOutcome {
  actual: ActualOutcome;
  differences: Difference[];
  /** The explanation of the test's event (`/event/explain`), for `--verbose` and coverage. */
  explanation: MechanismExplanation[];
}

/** Plays one test (play-event.ts); a test that stubs a PIP method or a PXP action replaces the file's stubs of it. */
export async function runTestCase(file: TestFile, test: EventCase, set: PolicySet, recordedActions: ReadonlySet<string>): Promise<CaseOutcome> {
  const played = await playEvent({ settings: file.settings, ...stubsOf(file, test), history: test.history, event: test.event }, set, recordedActions);
  const actual = outcomeOf(played.decision, played.calls);
  return { actual, differences: compareOutcome(test.expect, actual), explanation: played.explanation };
}

/** The stubs a test plays with: its own, and the file's for the methods and actions it does not stub. */
export function stubsOf(file: TestFile, test: Pick<EventCase, 'pips' | 'pxps'>): { pips: PipStub[]; pxps: PxpStub[] } {
  const testMethods = new Set(test.pips.map((stub) => stub.method));
  const testActions = new Set(test.pxps.map((stub) => stub.action));
  return {
    pips: [...test.pips, ...file.pips.filter((stub) => !testMethods.has(stub.method))],
    pxps: [...test.pxps, ...file.pxps.filter((stub) => !testActions.has(stub.action))],
  };
}

export function outcomeOf(decision: EngineDecision, calls: readonly PxpCall[]): ActualOutcome {
  const wire = toAuthorizationDecision('urn:decision:test', decision);
  return {
    allowed: wire.eventAllowed,
    modifiers: wire.modifiers,
    delay: wire.delay,
    executes: [
      ...decision.executions.map((execution) => ({ action: execution.action, parameters: recordOf(execution.parameters), planned: true })),
      ...calls.map((call) => ({ ...call, planned: false })),
    ],
    errors: decision.errors.map((error) => `\`${error.policyId}\` mechanism ${error.mechanism + 1}: ${error.message}`),
  };
}
