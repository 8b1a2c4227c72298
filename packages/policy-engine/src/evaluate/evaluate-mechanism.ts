import type { BranchTaken, EngineModifier, PlannedExecution } from '../api';
import type { DecisionProgram, ExecutionProgram, MechanismProgram } from '../compile/program';
import { isFailure, type Evaluate, type EvaluationContext, type EvaluationFailure } from '../functions/evaluation';
import { evaluateParametersSync } from '../functions/parameters';
import { ELSE_BRANCH, NO_BRANCH, settleOutcome, type MechanismOutcome } from './mechanism-outcome';

/**
 * Runs one synchronous mechanism for an event: the first true condition picks its branch, else the `else`, else
 * nothing. Any failure makes the outcome `error` and drops the branch's modifiers and executes. Unconditional
 * executes are planned whenever their own parameters evaluate, because they run whatever the branch (§3).
 * evaluate-mechanism-async.ts is the same walk for mechanisms that wait for ports.
 */
export function evaluateMechanism(mechanism: MechanismProgram, context: EvaluationContext, explain: boolean): MechanismOutcome {
  const conditions: Array<{ branch: number; value: boolean | null }> | null = explain ? [] : null;
  let chosen: DecisionProgram | null = null;
  let branch: BranchTaken = NO_BRANCH;
  let failure: EvaluationFailure | null = null;

  for (let position = 0; position < mechanism.branches.length; position += 1) {
    const candidate = mechanism.branches[position]!;
    const value = (candidate.condition as Evaluate<boolean>)(context);
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
    const materialized = materializeDecision(mechanism.policyId, chosen, context);
    if (isFailure(materialized)) failure = materialized;
    else ({ modifiers, executions } = materialized);
  }
  const unconditional = planExecutions(mechanism.policyId, mechanism.executions, context);
  failure ??= unconditional.failure;
  if (unconditional.planned.length > 0) executions = executions.concat(unconditional.planned);

  return settleOutcome(
    mechanism,
    { branch, conditions, chosen, failure, modifiers, executions, unconditional: unconditional.planned },
    context.trace,
  );
}

function materializeDecision(
  policyId: string,
  decision: DecisionProgram,
  context: EvaluationContext,
): { modifiers: EngineModifier[]; executions: PlannedExecution[] } | EvaluationFailure {
  const modifiers: EngineModifier[] = [];
  for (const modifier of decision.modifiers) {
    const parameters = evaluateParametersSync(modifier.parameters, context);
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
  const executions = planExecutions(policyId, decision.executions, context);
  return executions.failure ?? { modifiers, executions: executions.planned };
}

function planExecutions(
  policyId: string,
  programs: readonly ExecutionProgram[],
  context: EvaluationContext,
): { planned: PlannedExecution[]; failure: EvaluationFailure | null } {
  const planned: PlannedExecution[] = [];
  let failure: EvaluationFailure | null = null;
  for (const program of programs) {
    const parameters = evaluateParametersSync(program.parameters, context);
    if (isFailure(parameters)) failure ??= parameters;
    else planned.push({ policyId, action: program.action, parameters });
  }
  return { planned, failure };
}
