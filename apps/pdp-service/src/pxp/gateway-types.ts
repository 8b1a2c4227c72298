import { wireParameters } from '@custos/contracts';
import type { NamedValue } from '@custos/policy-engine';
import type { Logger } from '@custos/service-kit';
import type { CallTargets } from '../calls/http-json';
import type { ComponentRegistry } from '../components/registry';
import type { PgExecutionStore } from './execution-store';

/** What the PXP gateway is configured with, and the jobs it keeps (gateway.ts). */

export type PxpOutcome =
  | 'done'
  | 'refused'
  | 'failed'
  | 'unregistered'
  | 'abandoned'
  | 'dropped'
  /** Written to pdp.executions could not be: delivered from memory only. */
  | 'unpersisted'
  /** Still pending at shutdown, its claim given back for another replica. */
  | 'handed-over';

/** The header that carries an execute's id to the PXP; a repeated delivery carries the same one. */
export const IDEMPOTENCY_HEADER = 'Idempotency-Key';

export interface DurableExecutionOptions {
  store: PgExecutionStore;
  /** How long a claim on a pending execute lasts past its next attempt; then any replica may take it over. */
  leaseMs: number;
  /** How often pending executes of other (or dead) replicas are looked for. */
  pollMs: number;
  /** The active components, for executes claimed from the store; undefined before the first snapshot. */
  registry: () => ComponentRegistry | undefined;
  /** Done and refused executes are deleted after this long (default one day). */
  keepFinishedMs?: number;
  /** Told how many executes are pending and failed, after each count (the metric). */
  onCounts?: (counts: { pending: number; failed: number }) => void;
  now?: () => number;
}

export interface PxpGatewayOptions {
  targets: CallTargets;
  logger: Logger;
  /** Timeout of one attempt of an asynchronous execute. */
  timeoutMs: number;
  /** Timeout of an `execute` inside a condition. */
  syncTimeoutMs: number;
  /** Attempts of an asynchronous execute, the first included. */
  attempts: number;
  /** First retry delay; doubled per attempt (at most 60 s), ±20 % jitter. */
  backoffMs: number;
  /** Asynchronous executes waiting or running at most; more are dropped with an error line (never silently). */
  maxPending?: number;
  onOutcome?: (kind: 'async' | 'sync', outcome: PxpOutcome) => void;
  /** Executes are written to pdp.executions before the answer and delivered at least once (docs/api.md). */
  durable?: DurableExecutionOptions;
}

/** What an asynchronous execute belongs to, for its log lines. */
export interface ExecutionContext {
  decisionId: string;
  /** The timer that fired the event, when a timer did. */
  timerId?: string;
}

export interface Job {
  readonly context: ExecutionContext;
  readonly policyId: string;
  readonly action: string;
  /** The request body, api.md §6. */
  readonly body: unknown;
  /** The registry the PXP is looked up in: the deciding set's, or the current one for claimed executes. */
  readonly registry: ComponentRegistry;
  /** The row in pdp.executions; undefined when it lives in memory only. */
  readonly id: string | undefined;
  readonly maxAttempts: number;
  attempt: number;
  timer?: NodeJS.Timeout;
}

/** The request body of an execute, api.md §6. */
export function executeBody(action: string, parameters: readonly NamedValue[]): unknown {
  return { id: { urn: action }, parameters: wireParameters(parameters) };
}
