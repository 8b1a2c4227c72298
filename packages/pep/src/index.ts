/** The PEP SDK: ask Custos for decisions and enforce them. */
export { CustosClient, type DecideOptions, type EnforceOptions, type Enforcement, type ItemEnforcement } from './client';
export type { CustosClientOptions } from './options';
export type { RetryOptions, RetryInfo } from './retry';
export type { TraceHeaders } from './trace';
export type { Decision } from './decision';
export {
  CustosError,
  DecisionDeniedError,
  DecisionTimeoutError,
  TransportError,
  AuthenticationError,
  UnexpectedStatusError,
  TooManyRequestsError,
  MalformedDecisionError,
  UnsupportedModifierError,
  JsonPathError,
  ModifierError,
  ModifierTargetError,
  ConfigurationError,
  RedirectError,
  type ModifierContext,
  type ProblemBody,
} from './errors';
export { applyModifiers } from './apply-modifiers';
export { SUPPORTED_MODIFIER_METHODS } from './modifiers/registry';
export { event, parameter, parameterValue, typed, TypedValue, MAX_VALUE_DEPTH, type EventOptions, type EventValues } from './event-builder';
export {
  custosMiddleware,
  deniedAnswer,
  type DeniedAnswer,
  type MiddlewareOptions,
  type MiddlewareResponse,
  type NextFunction,
  type RequestWithCustos,
} from './middleware';
export { applyAuthZenModifiers, type AuthZenContext, type AuthZenResult, type AuthZenResults } from './authzen';
export type {
  AccessEvaluationRequest,
  AccessEvaluationsRequest,
  AuthZenEvaluation,
  AuthZenOptions,
  CustosDecisionContext,
  CompleteEvaluation,
} from '@custos/contracts';
export { MAX_BATCH_ITEMS } from '@custos/contracts';
