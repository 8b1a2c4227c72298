import type { CompiledPolicy } from '../api';
import type { ValidMechanism, ValidPolicy } from '../ast/valid/policy';
import type { EvaluateAsync } from '../functions/evaluation';
import { compileExpression } from './compile-expression';
import { compileDecision, compileExecutions } from './compile-decision';
import type { BranchProgram, DecisionProgram, ExecutionProgram, MechanismProgram } from './program';
import { explainedCondition } from '../functions/explained';
import { newExplainState } from './explain-values';
import { registerExplaining, registerProgram } from './registry';
import { CompileScope } from './scope';
import { sharedCondition } from './shared-conditions';

/**
 * Validated tree → public metadata plus the program behind it. Never fails: validation built the tree.
 *
 * `source` gives the tree again for the explaining program, compiled on the first explanation. Without it the tree
 * itself is kept for that, which costs memory for as long as the policy lives; a caller that still has the text it
 * read the tree from passes a way to read it again instead (loadPolicy does). `null`: nothing is kept, and the
 * policy must be given its source (`provideExplanationSource`) before it is explained (the pdp, issue 26).
 */
export function compilePolicy(policy: ValidPolicy, source?: (() => ValidPolicy) | null): CompiledPolicy {
  const { id, solution } = policy;
  const { scope, mechanisms } = compileProgram(policy, false);
  const { usage } = scope;
  const compiled: CompiledPolicy = Object.freeze({
    id,
    solution,
    name: policy.name,
    description: policy.description,
    actions: Object.freeze([...new Set(mechanisms.map((mechanism) => mechanism.event))]),
    historyActions: frozenList(usage.actions),
    usesHistory: usage.usesHistory,
    maxHistorySpanMs: usage.actions.length === 0 ? 0 : usage.reachMs,
    historyFilters: frozenList(usage.filters.map((filter) => Object.freeze({ ...filter }))),
    usesPorts: mechanisms.some((mechanism) => mechanism.mode === 'async'),
  });
  registerProgram(compiled, { policyId: id, mechanisms });
  // The program of explanations records operand values; compiled on the first explanation, so decisions never pay.
  registerExplaining(mechanisms, source === null ? null : explainingCompiler(source ?? kept(policy)));
  return compiled;
}

/** The explaining program of a policy, compiled now from its validated tree. */
export const explainingProgram = (policy: ValidPolicy): readonly MechanismProgram[] => compileProgram(policy, true).mechanisms;

// Closures made in functions of their own, so each holds only what it names: a closure made in compilePolicy would
// share its scope and keep the tree alive even when `source` reads it again from the text.
const kept = (policy: ValidPolicy) => () => policy;
const explainingCompiler = (source: () => ValidPolicy) => () => compileProgram(source(), true).mechanisms;

function compileProgram(policy: ValidPolicy, explaining: boolean): { scope: CompileScope; mechanisms: MechanismProgram[] } {
  const scope = new CompileScope(policy.id, policy.solution, compileExpression, explaining ? newExplainState() : null);
  // Every declaration compiles, referenced or not: what loadPolicy accepts must compile.
  for (const declaration of policy.declarations) scope.variable(declaration);
  const mechanisms = policy.mechanisms.map((mechanism, index) => compileMechanism(mechanism, scope, index));
  return { scope, mechanisms };
}

/** Most policies use no history: they all share one frozen empty list instead of one each. */
const EMPTY: readonly never[] = Object.freeze([]);
const frozenList = <T>(items: readonly T[]): readonly T[] => (items.length === 0 ? EMPTY : Object.freeze([...items]));

function compileMechanism(mechanism: ValidMechanism, scope: CompileScope, index: number): MechanismProgram {
  let elseifCount = 0;
  let asynchronous = false;
  const branches: BranchProgram[] = mechanism.branches.map((branch, position) => {
    // Decisions share a pure condition with every policy that has the same one; explanations record their own.
    const compile = () => compileExpression(branch.condition, scope);
    const condition = scope.explain === null ? sharedCondition(branch.condition, compile) : compile();
    asynchronous ||= condition.mode === 'async';
    // A boolean expression by its validated type.
    const evaluate = condition.evaluate as EvaluateAsync<boolean>;
    return {
      kind: branch.kind,
      index: branch.kind === 'if' ? 0 : elseifCount++,
      condition: scope.explain === null ? evaluate : explainedCondition(position, evaluate),
      decision: compileDecision(branch.then, scope),
    };
  });
  const otherwise = mechanism.otherwise === null ? null : compileDecision(mechanism.otherwise, scope);
  const executions = compileExecutions(mechanism.executions, scope);
  const decisions: Array<DecisionProgram | null> = [...branches.map((branch) => branch.decision), otherwise];
  const allExecutions: ExecutionProgram[] = [...executions, ...decisions.flatMap((decision) => decision?.executions ?? [])];
  const parameters = [
    ...allExecutions.flatMap((execution) => execution.parameters),
    ...decisions.flatMap((decision) => decision?.modifiers.flatMap((modifier) => modifier.parameters) ?? []),
  ];
  asynchronous ||= parameters.some((parameter) => parameter.mode === 'async');
  return {
    policyId: scope.policyId,
    index,
    event: mechanism.event,
    mode: asynchronous ? 'async' : 'sync',
    branches,
    otherwise,
    executions,
  };
}
