import type { BranchTaken, EngineModifier, NamedValue, PlannedExecution } from '../api';
import type { BranchProgram, DecisionProgram, ExecutionProgram, MechanismProgram, ModifierProgram } from '../compile/program';
import { isFailure, thrownFailure, type EvaluationContext, type EvaluationFailure } from '../functions/evaluation';
import { isPromise, type MaybePromise } from '../functions/maybe';
import { evaluateParameters } from '../functions/parameters';
import { ELSE_BRANCH, NO_BRANCH, settleOutcome, type MechanismOutcome, type WalkResult } from './mechanism-outcome';

/** The walk's progress, kept in one object so the walk can resume where a port made it wait. */
interface Walk extends WalkResult {
  readonly mechanism: MechanismProgram;
  readonly context: EvaluationContext;
  branch: BranchTaken;
  chosen: DecisionProgram | null;
  failure: EvaluationFailure | null;
}

type Continue = (walk: Walk) => MaybePromise<MechanismOutcome>;

/**
 * Runs one mechanism for an event: the first true condition picks its branch, else the `else`, else nothing. Any
 * failure makes the outcome `error` and drops the branch's modifiers and executes. Unconditional executes are planned
 * whenever their own parameters evaluate, because they run whatever the branch (§3).
 *
 * One walk for every mechanism. Each loop below runs on plain calls while values are ready and resumes from its
 * position in a `.then` only where a closure returned a promise, so a mechanism without ports (whose closures never
 * return one) is walked without a promise, a generator or a closure allocated, and the outcome comes back as is.
 * Every promise waited on gets a rejection handler too: a closure that rejects fails the mechanism like any failure.
 */
export function evaluateMechanism(mechanism: MechanismProgram, context: EvaluationContext, explain: boolean): MaybePromise<MechanismOutcome> {
  const walk: Walk = {
    mechanism,
    context,
    conditions: explain ? [] : null,
    branch: NO_BRANCH,
    chosen: null,
    failure: null,
    modifiers: [],
    executions: [],
    unconditional: [],
  };
  return conditionsFrom(walk, 0);
}

function conditionsFrom(walk: Walk, from: number): MaybePromise<MechanismOutcome> {
  const branches = walk.mechanism.branches;
  for (let position = from; position < branches.length; position += 1) {
    const candidate = branches[position];
    if (candidate === undefined) break;
    const value = candidate.condition(walk.context);
    if (isPromise(value)) {
      return value.then(
        (ready) => (takeCondition(walk, candidate, position, ready) ? conditionsFrom(walk, position + 1) : decisionOf(walk)),
        (error: unknown) => {
          takeCondition(walk, candidate, position, thrownFailure(error));
          return decisionOf(walk);
        },
      );
    }
    if (!takeCondition(walk, candidate, position, value)) return decisionOf(walk);
  }
  if (walk.mechanism.otherwise !== null) {
    walk.chosen = walk.mechanism.otherwise;
    walk.branch = ELSE_BRANCH;
  }
  return decisionOf(walk);
}

/** Records a condition's value; true when the next condition must be looked at. */
function takeCondition(walk: Walk, candidate: BranchProgram, position: number, value: boolean | EvaluationFailure): boolean {
  if (isFailure(value)) {
    walk.conditions?.push({ branch: position, value: null });
    walk.failure = value;
    return false;
  }
  walk.conditions?.push({ branch: position, value });
  if (!value) return true;
  walk.chosen = candidate.decision;
  walk.branch = { kind: candidate.kind, index: candidate.index };
  return false;
}

function decisionOf(walk: Walk): MaybePromise<MechanismOutcome> {
  if (walk.chosen === null || walk.failure !== null) return unconditionalExecutions(walk);
  return modifiersFrom(walk, walk.chosen, 0);
}

function modifiersFrom(walk: Walk, decision: DecisionProgram, from: number): MaybePromise<MechanismOutcome> {
  const modifiers = decision.modifiers;
  for (let position = from; position < modifiers.length; position += 1) {
    const modifier = modifiers[position];
    if (modifier === undefined) break;
    const parameters = evaluateParameters(modifier.parameters, walk.context);
    if (isPromise(parameters)) {
      return parameters.then(
        (ready) => (takeModifier(walk, modifier, ready) ? modifiersFrom(walk, decision, position + 1) : unconditionalExecutions(walk)),
        (error: unknown) => {
          takeModifier(walk, modifier, thrownFailure(error));
          return unconditionalExecutions(walk);
        },
      );
    }
    if (!takeModifier(walk, modifier, parameters)) return unconditionalExecutions(walk);
  }
  return executionsFrom(walk, decision.executions, 0, walk.executions, unconditionalExecutions);
}

/** Plans one modifier; false when its parameters failed, which fails the branch. */
function takeModifier(walk: Walk, modifier: ModifierProgram, parameters: NamedValue[] | EvaluationFailure): boolean {
  if (isFailure(parameters)) {
    walk.failure = parameters;
    return false;
  }
  const planned: EngineModifier = {
    policyId: walk.mechanism.policyId,
    eventParameter: modifier.eventParameter,
    expression: modifier.expression,
    method: modifier.method,
    parameters,
    reason: modifier.reason,
  };
  walk.modifiers.push(planned);
  return true;
}

function unconditionalExecutions(walk: Walk): MaybePromise<MechanismOutcome> {
  return executionsFrom(walk, walk.mechanism.executions, 0, walk.unconditional, settle);
}

/** Plans each execute whose parameters evaluate; the first failure is kept and the others still planned. */
function executionsFrom(
  walk: Walk,
  programs: readonly ExecutionProgram[],
  from: number,
  planned: PlannedExecution[],
  next: Continue,
): MaybePromise<MechanismOutcome> {
  for (let position = from; position < programs.length; position += 1) {
    const program = programs[position];
    if (program === undefined) break;
    const parameters = evaluateParameters(program.parameters, walk.context);
    if (isPromise(parameters)) {
      const resume = (ready: NamedValue[] | EvaluationFailure) => {
        takeExecution(walk, program, ready, planned);
        return executionsFrom(walk, programs, position + 1, planned, next);
      };
      return parameters.then(resume, (error: unknown) => resume(thrownFailure(error)));
    }
    takeExecution(walk, program, parameters, planned);
  }
  return next(walk);
}

function takeExecution(walk: Walk, program: ExecutionProgram, parameters: NamedValue[] | EvaluationFailure, planned: PlannedExecution[]): void {
  if (isFailure(parameters)) walk.failure ??= parameters;
  else planned.push({ policyId: walk.mechanism.policyId, action: program.action, parameters });
}

function settle(walk: Walk): MechanismOutcome {
  return settleOutcome(walk.mechanism, walk, walk.context.trace);
}
