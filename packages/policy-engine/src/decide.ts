import type { DecideOptions, EngineDecision, EngineEvent, MechanismError, MechanismExplanation, PolicySet } from './api';
import { combine } from './combine/combine';
import { evaluateMechanism } from './evaluate/evaluate-mechanism';
import type { MechanismOutcome } from './evaluate/mechanism-outcome';
import type { EvaluationContext } from './functions/evaluation';
import { IndexedPolicySet } from './policy-set/policy-set';

/**
 * Decides one event against a set (policy-language.md §3 and §7). Synchronous: every supported element is pure.
 * Never throws for an event; a mechanism that throws anyway (a bug) is recorded as failed, which inhibits.
 */
export function decide(set: PolicySet, event: EngineEvent, options: DecideOptions): EngineDecision {
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
    if (explain) decision.explanation = [];
    return decision;
  }

  const context: EvaluationContext = { event, timeZone: options.timeZone };
  const outcomes = entry.mechanisms.map((mechanism) => {
    try {
      return evaluateMechanism(mechanism, context, explain);
    } catch (error) {
      return crashed(mechanism.policyId, mechanism.index, mechanism.event, error);
    }
  });
  const combined = combine(outcomes, options.defaultDecision);
  const errors: MechanismError[] = [];
  for (const outcome of outcomes) {
    if (outcome.error !== null) errors.push({ policyId: outcome.policyId, mechanism: outcome.mechanism, message: outcome.error });
  }
  const decision: EngineDecision = {
    allowed: combined.allowed,
    decided: combined.decided,
    modifiers: combined.modifiers,
    delayMs: combined.delayMs,
    executions: outcomes.flatMap((outcome) => outcome.executions),
    matchedPolicies: [...entry.policyIds],
    errors,
  };
  if (explain) decision.explanation = outcomes.map(explanationOf);
  return decision;
}

function crashed(policyId: string, mechanism: number, event: string, error: unknown): MechanismOutcome {
  const message = error instanceof Error ? error.message : String(error);
  return {
    policyId,
    mechanism,
    event,
    verdict: 'error',
    delayMs: 0,
    modifiers: [],
    executions: [],
    reason: null,
    error: `internal error: ${message}`,
    branch: { kind: 'none' },
    conditions: [],
  };
}

function explanationOf(outcome: MechanismOutcome): MechanismExplanation {
  return {
    policyId: outcome.policyId,
    mechanism: outcome.mechanism,
    event: outcome.event,
    branch: outcome.branch,
    conditions: outcome.conditions ?? [],
    outcome: outcome.verdict,
    delayMs: outcome.delayMs,
    modifiers: outcome.modifiers,
    executions: outcome.executions,
    reason: outcome.reason,
    error: outcome.error,
  };
}
