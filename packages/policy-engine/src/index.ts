/**
 * The policy engine: the Custos policy language, no I/O. The only entry point of the package.
 */
export type {
  BranchTaken,
  CompiledPolicy,
  DecideOptions,
  Diagnostic,
  EngineDecision,
  EngineEvent,
  EngineModifier,
  LoadOutcome,
  MechanismError,
  MechanismExplanation,
  NamedValue,
  PlannedExecution,
  PolicySet,
} from './api';
export { loadPolicy } from './load-policy';
export { createPolicySet, emptyPolicySet } from './policy-set/create';
export { decide } from './decide';
