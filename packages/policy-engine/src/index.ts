/**
 * The policy engine: the Custos policy language, no I/O. The only entry point of the package.
 */
export type {
  BranchTaken,
  CompiledPolicy,
  ConditionExecutionExplanation,
  DecideOptions,
  Diagnostic,
  EngineDecision,
  EngineEvent,
  EngineModifier,
  ExplainedSpan,
  HistoryExplanation,
  HistoryFilterSpec,
  LoadOutcome,
  MechanismError,
  MechanismExplanation,
  NamedValue,
  OperandExplanation,
  PipExplanation,
  PlannedExecution,
  PolicySet,
  ValueChangedExplanation,
  ValueExplanation,
} from './api';
export type {
  Clock,
  EvaluationPorts,
  EventHistory,
  HistoryFilter,
  HistoryQuery,
  PipAnswer,
  PipResolver,
  PxpExecutor,
  TimeSpan,
  ValueChangedRequest,
} from './evaluate/ports';
export { historyFilterValue } from './evaluate/history-filter-value';
export { createMemoryHistory, type MemoryHistory, type MemoryHistoryEvent } from './evaluate/memory-history';
export { loadPolicy } from './load-policy';
export { loadCompiledTree, loadPolicyTree, supportsPolicyTree, type TreeLoadOptions, type TreeLoadOutcome } from './tree/load-tree';
export { explanationSourcesNeeded, provideExplanationSource, type ExplanationSource } from './compile/explanation-source';
export { POLICY_TREE_VERSION, type PolicyTree } from './tree/tree-format';
export { createPolicySet, emptyPolicySet } from './policy-set/create';
export { decide } from './decide';
export { outlinePolicy, type BranchOutline, type MechanismOutline, type PolicyOutline } from './outline/policy-outline';
export { loadTimer, TIMER_NAMESPACE, type TimerDocument, type TimerEvent, type TimerLoadOutcome } from './timer/read-timer';
export { nextFireTime, type FireSchedule } from './timer/fire-times';
export { timerScheduleDiagnostic } from './timer/schedule-diagnostic';
export { closestName } from './closest-name';
export {
  describePolicyLanguage,
  type ContentSlot,
  type LanguageAttribute,
  type LanguageDescription,
  type LanguageElement,
} from './language/describe';
export { mainSchemaFile, policySchemaFiles, SCHEMA_VERSIONS, type SchemaFile, type SchemaVersion } from './language/xsd';
