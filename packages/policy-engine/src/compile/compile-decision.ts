import type { ValidDecision, ValidExecute, ValidModify } from '../ast/valid/policy';
import { compileParameters } from './compile-parameters';
import type { DecisionProgram, ExecutionProgram, ModifierProgram } from './program';
import type { CompileScope } from './scope';

/** A `then` or `else` (policy-language.md §3 Decision): `modify` alone already allows. */
export function compileDecision(decision: ValidDecision, scope: CompileScope): DecisionProgram {
  const modifiers = decision.modifiers.map((modify) => compileModifier(modify, scope));
  return {
    verdict: decision.verdict?.kind ?? (modifiers.length > 0 ? 'allow' : 'none'),
    reason: decision.verdict?.reason ?? null,
    delayMs: decision.delayMs ?? 0,
    modifiers,
    executions: compileExecutions(decision.executions, scope),
  };
}

/** `execute` in a decision or directly under a mechanism: planned, run by the pdp after the decision. */
export function compileExecutions(executions: readonly ValidExecute[], scope: CompileScope): ExecutionProgram[] {
  return executions.map((execute) => ({ action: execute.action, parameters: compileParameters(execute.parameters, scope) }));
}

function compileModifier(modify: ValidModify, scope: CompileScope): ModifierProgram {
  return {
    eventParameter: modify.eventParameter,
    expression: modify.path?.text ?? '$',
    method: modify.method,
    reason: modify.reason,
    parameters: compileParameters(modify.parameters, scope),
  };
}
