import { toAuthorizationDecision } from '@custos/contracts';
import {
  createMemoryHistory,
  decide,
  type DecideOptions,
  type EngineDecision,
  type EvaluationPorts,
  type MechanismExplanation,
  type PolicySet,
} from '@custos/policy-engine';
import { compareOutcome, type Difference } from './compare';
import { recordOf, stubPip, stubPxp, type PxpCall } from './stubs';
import type { ActualOutcome, TestCase, TestFile } from './test-file';
import { engineEventOf } from './wire-event';

export interface CaseOutcome {
  actual: ActualOutcome;
  differences: Difference[];
  /** The explanation of the test's event (`/event/explain`), for `--verbose` and coverage. */
  explanation: MechanismExplanation[];
}

/**
 * Plays one test as the pdp would see it: a fresh event history; each `history` event, in time order, is recorded
 * (when some policy counts its action) and decided at its own timestamp, so `valueChanged` state builds up as it
 * would; then the test's event is recorded and decided at its timestamp, which is the decision's "now". The
 * explanation is taken first, on the same state, since explaining changes nothing.
 */
export async function runTestCase(file: TestFile, test: TestCase, set: PolicySet, recordedActions: ReadonlySet<string>): Promise<CaseOutcome> {
  const options: DecideOptions = { defaultDecision: file.settings.defaultDecision, timeZone: file.settings.timeZone };
  const history = createMemoryHistory();
  // A test that stubs a PIP method or a PXP action replaces the file's stubs of it.
  const testMethods = new Set(test.pips.map((stub) => stub.method));
  const pip = stubPip([...test.pips, ...file.pips.filter((stub) => !testMethods.has(stub.method))]);
  const testActions = new Set(test.pxps.map((stub) => stub.action));
  const pxpStubs = [...test.pxps, ...file.pxps.filter((stub) => !testActions.has(stub.action))];
  const ports = (now: number, calls: PxpCall[] | null): EvaluationPorts => ({ history, pip, pxp: stubPxp(pxpStubs, calls), clock: { now: () => now } });

  const earlier = [...test.history].sort((a, b) => a.timestamp - b.timestamp);
  for (const past of earlier) {
    const event = engineEventOf(past);
    if (recordedActions.has(event.action)) history.record(event.action, event.timestamp, event.parameters);
    await decide(set, event, options, ports(event.timestamp, null));
  }

  const event = engineEventOf(test.event);
  if (recordedActions.has(event.action)) history.record(event.action, event.timestamp, event.parameters);
  const explained = await decide(set, event, { ...options, explain: true }, ports(event.timestamp, null));
  const calls: PxpCall[] = [];
  const decision = await decide(set, event, options, ports(event.timestamp, calls));
  const actual = outcomeOf(decision, calls);
  return { actual, differences: compareOutcome(test.expect, actual), explanation: explained.explanation ?? [] };
}

function outcomeOf(decision: EngineDecision, calls: readonly PxpCall[]): ActualOutcome {
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
