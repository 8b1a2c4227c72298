import type { BranchTaken, EngineModifier, NamedValue, PlannedExecution } from '../api';
import type { DecisionProgram, ExecutionProgram, MechanismProgram } from '../compile/program';
import { isFailure, type EvaluationContext, type EvaluationFailure } from '../functions/evaluation';
import { drive, type MaybePromise } from '../functions/maybe';
import { evaluateParameters } from '../functions/parameters';
import { ELSE_BRANCH, NO_BRANCH, settleOutcome, type MechanismOutcome } from './mechanism-outcome';

type Steps<T> = Generator<unknown, T, unknown>;

/**
 * The walk of evaluate-mechanism.ts for a mechanism whose closures may wait for a port: the same rules, with each
 * value taken through `yield`. Synchronous until some port really answers later (a missing port, for instance,
 * fails at once), so a decision without ports stays synchronous.
 */
export function evaluateMechanismAsync(mechanism: MechanismProgram, context: EvaluationContext, explain: boolean): MaybePromise<MechanismOutcome> {
  return drive(mechanismSteps(mechanism, context, explain));
}

function* mechanismSteps(mechanism: MechanismProgram, context: EvaluationContext, explain: boolean): Steps<MechanismOutcome> {
  const conditions: Array<{ branch: number; value: boolean | null }> | null = explain ? [] : null;
  let chosen: DecisionProgram | null = null;
  let branch: BranchTaken = NO_BRANCH;
  let failure: EvaluationFailure | null = null;

  for (let position = 0; position < mechanism.branches.length; position += 1) {
    const candidate = mechanism.branches[position]!;
    const value = (yield candidate.condition(context)) as boolean | EvaluationFailure;
    if (isFailure(value)) {
      conditions?.push({ branch: position, value: null });
      failure = value;
      break;
    }
    conditions?.push({ branch: position, value });
    if (value) {
      chosen = candidate.decision;
      branch = { kind: candidate.kind, index: candidate.index };
      break;
    }
  }
  if (failure === null && chosen === null && mechanism.otherwise !== null) {
    chosen = mechanism.otherwise;
    branch = ELSE_BRANCH;
  }

  let modifiers: EngineModifier[] = [];
  let executions: PlannedExecution[] = [];
  if (chosen !== null && failure === null) {
    const materialized = yield* decisionSteps(mechanism.policyId, chosen, context);
    if (isFailure(materialized)) failure = materialized;
    else ({ modifiers, executions } = materialized);
  }
  const unconditional = yield* executionSteps(mechanism.policyId, mechanism.executions, context);
  failure ??= unconditional.failure;
  if (unconditional.planned.length > 0) executions = executions.concat(unconditional.planned);

  return settleOutcome(
    mechanism,
    { branch, conditions, chosen, failure, modifiers, executions, unconditional: unconditional.planned },
    context.trace,
  );
}

function* decisionSteps(
  policyId: string,
  decision: DecisionProgram,
  context: EvaluationContext,
): Steps<{ modifiers: EngineModifier[]; executions: PlannedExecution[] } | EvaluationFailure> {
  const modifiers: EngineModifier[] = [];
  for (const modifier of decision.modifiers) {
    const parameters = (yield evaluateParameters(modifier.parameters, context)) as NamedValue[] | EvaluationFailure;
    if (isFailure(parameters)) return parameters;
    modifiers.push({
      policyId,
      eventParameter: modifier.eventParameter,
      expression: modifier.expression,
      method: modifier.method,
      parameters,
      reason: modifier.reason,
    });
  }
  const executions = yield* executionSteps(policyId, decision.executions, context);
  return executions.failure ?? { modifiers, executions: executions.planned };
}

function* executionSteps(
  policyId: string,
  programs: readonly ExecutionProgram[],
  context: EvaluationContext,
): Steps<{ planned: PlannedExecution[]; failure: EvaluationFailure | null }> {
  const planned: PlannedExecution[] = [];
  let failure: EvaluationFailure | null = null;
  for (const program of programs) {
    const parameters = (yield evaluateParameters(program.parameters, context)) as NamedValue[] | EvaluationFailure;
    if (isFailure(parameters)) failure ??= parameters;
    else planned.push({ policyId, action: program.action, parameters });
  }
  return { planned, failure };
}
