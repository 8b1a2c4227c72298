import type { DecideOptions, EngineDecision, EngineEvent, MechanismError, MechanismExplanation, PolicySet } from './api';
import { combine } from './combine/combine';
import type { MechanismProgram } from './compile/program';
import { explainingMechanism } from './compile/registry';
import { evaluateMechanism } from './evaluate/evaluate-mechanism';
import { NO_BRANCH, outcome, type MechanismOutcome } from './evaluate/mechanism-outcome';
import type { EvaluationPorts } from './evaluate/ports';
import type { EvaluationContext, RequestState } from './functions/evaluation';
import { isPromise, type MaybePromise } from './functions/maybe';
import { IndexedPolicySet } from './policy-set/policy-set';

/**
 * Decides one event against a set (policy-language.md §3 and §7). Never throws for an event; a mechanism that throws
 * anyway (a bug) is recorded as failed, which inhibits.
 *
 * Without ports the answer is always synchronous: an element that needs a missing port fails its mechanism (a pip
 * takes its default). With ports, the answer is a promise exactly when some mechanism had to wait for one; policies
 * that use no port are decided by plain closures and never pay for a promise.
 */
export function decide(set: PolicySet, event: EngineEvent, options: DecideOptions): EngineDecision;
export function decide(
  set: PolicySet,
  event: EngineEvent,
  options: DecideOptions,
  ports: EvaluationPorts | undefined,
): EngineDecision | Promise<EngineDecision>;
export function decide(
  set: PolicySet,
  event: EngineEvent,
  options: DecideOptions,
  ports?: EvaluationPorts,
): EngineDecision | Promise<EngineDecision> {
  if (!(set instanceof IndexedPolicySet)) throw new TypeError('policy set was not created by this engine');
  const explain = options.explain === true;
  const entry = set.entryFor(event.action);
  if (entry === undefined) {
    const decision: EngineDecision = {
      allowed: options.defaultDecision === 'allow',
      decided: false,
      modifiers: [],
      delayMs: 0,
      executions: [],
      matchedPolicies: [],
      errors: [],
    };
    if (options.defaultSource !== undefined) decision.defaultSource = options.defaultSource;
    if (explain) decision.explanation = [];
    return decision;
  }

  const request: RequestState = { ports, explain, variables: null, pipAnswers: null, now: undefined };
  const shared: EvaluationContext = { event, timeZone: options.timeZone, request, trace: null };
  const mechanisms = entry.mechanisms;
  let waiting = false;
  const outcomes: Array<MaybePromise<MechanismOutcome>> = mechanisms.map((mechanism) => {
    // Decisions share one context.
    if (!explain) {
      const result = run(mechanism, shared, false);
      waiting ||= isPromise(result);
      return result;
    }
    // Explanations keep a trace per mechanism and run the program that records operand values.
    const context: EvaluationContext = { event, timeZone: options.timeZone, request, trace: {} };
    const result = run(explainingMechanism(mechanism), context, true);
    waiting ||= isPromise(result);
    return result;
  });
  if (!waiting) return decision(outcomes as MechanismOutcome[], entry.policyIds, options, explain);
  return Promise.all(outcomes).then((settled) => decision(settled, entry.policyIds, options, explain));
}

function run(mechanism: MechanismProgram, context: EvaluationContext, explain: boolean): MaybePromise<MechanismOutcome> {
  try {
    const result = evaluateMechanism(mechanism, context, explain);
    return isPromise(result) ? result.catch((error: unknown) => crashed(mechanism, error)) : result;
  } catch (error) {
    return crashed(mechanism, error);
  }
}

function decision(
  outcomes: readonly MechanismOutcome[],
  policyIds: readonly string[],
  options: DecideOptions,
  explain: boolean,
): EngineDecision {
  const combined = combine(outcomes, options.defaultDecision);
  const errors: MechanismError[] = [];
  const executions = [];
  for (const item of outcomes) {
    if (item.error !== null) errors.push({ policyId: item.policyId, mechanism: item.mechanism, message: item.error });
    for (const execution of item.executions) executions.push(execution);
  }
  const result: EngineDecision = {
    allowed: combined.allowed,
    decided: combined.decided,
    modifiers: combined.modifiers,
    delayMs: combined.delayMs,
    executions,
    matchedPolicies: [...policyIds],
    errors,
  };
  if (!combined.decided && options.defaultSource !== undefined) result.defaultSource = options.defaultSource;
  if (explain) result.explanation = outcomes.map(explanationOf);
  return result;
}

function crashed(mechanism: MechanismProgram, error: unknown): MechanismOutcome {
  const message = error instanceof Error ? error.message : String(error);
  return outcome(mechanism, {
    branch: NO_BRANCH,
    conditions: [],
    verdict: 'error',
    delayMs: 0,
    modifiers: [],
    executions: [],
    reason: null,
    error: `internal error: ${message}`,
    trace: null,
  });
}

function explanationOf(item: MechanismOutcome): MechanismExplanation {
  const explanation: MechanismExplanation = {
    policyId: item.policyId,
    mechanism: item.mechanism,
    event: item.event,
    branch: item.branch,
    conditions: item.conditions ?? [],
    outcome: item.verdict,
    delayMs: item.delayMs,
    modifiers: item.modifiers,
    executions: item.executions,
    reason: item.reason,
    error: item.error,
  };
  const trace = item.trace;
  if (trace?.pip !== undefined) explanation.pip = trace.pip;
  if (trace?.history !== undefined) explanation.history = trace.history;
  if (trace?.valueChanged !== undefined) explanation.valueChanged = trace.valueChanged;
  if (trace?.conditionExecutions !== undefined) explanation.conditionExecutions = trace.conditionExecutions;
  if (trace?.values !== undefined) explanation.values = trace.values;
  return explanation;
}
