import { parseUrn, wireParameters } from '@custos/contracts';
import type { NamedValue, PlannedExecution, PxpExecutor } from '@custos/policy-engine';
import type { Logger } from '@custos/service-kit';
import type { CallTargets } from '../calls/http-json';
import type { ComponentRegistry } from '../components/registry';

export type PxpOutcome = 'done' | 'refused' | 'failed' | 'unregistered' | 'abandoned' | 'dropped';

export interface PxpGatewayOptions {
  targets: CallTargets;
  logger: Logger;
  /** Timeout of one attempt of an asynchronous execute. */
  timeoutMs: number;
  /** Timeout of an `execute` inside a condition. */
  syncTimeoutMs: number;
  /** Attempts of an asynchronous execute, the first included. */
  attempts: number;
  /** First retry delay; doubled per attempt, ±20 % jitter. */
  backoffMs: number;
  /** Asynchronous executes waiting or running at most; more are dropped with an error line (never silently). */
  maxPending?: number;
  onOutcome?: (kind: 'async' | 'sync', outcome: PxpOutcome) => void;
}

/** What an asynchronous execute belongs to, for its log lines. */
export interface ExecutionContext {
  decisionId: string;
  /** The timer that fired the event, when a timer did. */
  timerId?: string;
}

interface Job {
  readonly context: ExecutionContext;
  readonly execution: PlannedExecution;
  readonly registry: ComponentRegistry;
  attempt: number;
  timer?: NodeJS.Timeout;
}

/**
 * Calls PXPs (policy-language.md §8, api.md §6: `POST <url>/execute` with `{"id": {"urn": action}, "parameters": [...]}`,
 * answer a JSON boolean).
 *
 * - `executor(registry)`: the engine's port for `execute` inside a condition: one attempt with `syncTimeoutMs`; the
 *   answer counts only when it is `true`.
 * - `dispatch(...)`: the executes of a decision, run after the answer was sent; each is retried on failure with
 *   exponential backoff up to `attempts`, and its outcome is logged with the decision id: `pxp execute done`,
 *   `refused` (the PXP answered false: not retried), `failed` (after the last attempt) or `unregistered`. Jobs are
 *   kept in memory until they end; `drain` waits for them at shutdown and logs any left as `abandoned`.
 */
export class PxpGateway {
  private readonly pending = new Set<Job>();
  private readonly running = new Set<Promise<void>>();
  private stopping = false;

  constructor(private readonly options: PxpGatewayOptions) {}

  get size(): number {
    return this.pending.size;
  }

  executor(registry: ComponentRegistry): PxpExecutor {
    return { execute: (action, parameters, options) => this.executeNow(registry, action, parameters, options.solution) };
  }

  private async executeNow(registry: ComponentRegistry, action: string, parameters: readonly NamedValue[], solution: string): Promise<boolean> {
    const endpoint = registry.pxp(solution, action);
    const target = endpoint === undefined ? undefined : this.options.targets.forComponentUrl(endpoint.url);
    if (endpoint === undefined || target === undefined) {
      this.options.onOutcome?.('sync', 'unregistered');
      this.options.logger.warn({ action, solution }, 'no pxp is registered for the action; the condition is false');
      return false;
    }
    try {
      const answer = await target.post(body(action, parameters), this.options.syncTimeoutMs);
      this.options.onOutcome?.('sync', answer === true ? 'done' : 'refused');
      return answer === true;
    } catch (error) {
      this.options.onOutcome?.('sync', 'failed');
      this.options.logger.warn({ action, component: endpoint.componentId, problem: (error as Error).message }, 'pxp call in a condition failed; the condition is false');
      return false;
    }
  }

  /** Starts the executes of one decision; returns at once. */
  dispatch(registry: ComponentRegistry, executions: readonly PlannedExecution[], context: ExecutionContext): void {
    for (const execution of executions) {
      const job: Job = { context, execution, registry, attempt: 0 };
      if (this.stopping || this.pending.size >= (this.options.maxPending ?? 100_000)) {
        this.options.onOutcome?.('async', 'dropped');
        this.options.logger.error(
          { ...context, policyId: execution.policyId, action: execution.action, reason: this.stopping ? 'shutting down' : 'too many pending executes' },
          'pxp execute dropped',
        );
        continue;
      }
      this.pending.add(job);
      this.start(job);
    }
  }

  /** Waits up to `timeoutMs` for pending executes; logs those still pending as abandoned. */
  async drain(timeoutMs: number): Promise<void> {
    this.stopping = true;
    const deadline = Date.now() + timeoutMs;
    while (this.pending.size > 0 && Date.now() < deadline) {
      // Jobs waiting for a retry are started now rather than after their backoff.
      for (const job of this.pending) {
        if (job.timer !== undefined) {
          clearTimeout(job.timer);
          job.timer = undefined;
          this.start(job);
        }
      }
      const running = [...this.running];
      if (running.length === 0) break;
      await Promise.race([Promise.allSettled(running), new Promise((resolve) => setTimeout(resolve, Math.max(1, deadline - Date.now())))]);
    }
    for (const job of this.pending) {
      clearTimeout(job.timer);
      this.finish(job, 'abandoned', { attempts: job.attempt });
    }
  }

  private start(job: Job): void {
    const task = this.attempt(job).finally(() => this.running.delete(task));
    this.running.add(task);
  }

  private async attempt(job: Job): Promise<void> {
    const { execution, registry } = job;
    const solution = parseUrn('action', execution.action)?.solution ?? '';
    const endpoint = registry.pxp(solution, execution.action);
    const target = endpoint === undefined ? undefined : this.options.targets.forComponentUrl(endpoint.url);
    if (endpoint === undefined || target === undefined) {
      this.finish(job, 'unregistered', {});
      return;
    }
    job.attempt++;
    try {
      const answer = await target.post(body(execution.action, execution.parameters), this.options.timeoutMs);
      this.finish(job, answer === true ? 'done' : 'refused', { attempts: job.attempt, component: endpoint.componentId });
    } catch (error) {
      const problem = (error as Error).message;
      if (job.attempt >= this.options.attempts) {
        this.finish(job, 'failed', { attempts: job.attempt, component: endpoint.componentId, problem });
        return;
      }
      const delay = Math.round(this.options.backoffMs * 2 ** (job.attempt - 1) * (0.8 + Math.random() * 0.4));
      this.options.logger.info(
        { ...job.context, policyId: execution.policyId, action: execution.action, attempt: job.attempt, retryInMs: delay, problem },
        'pxp execute failed; retrying',
      );
      job.timer = setTimeout(() => {
        job.timer = undefined;
        this.start(job);
      }, this.stopping ? 0 : delay);
    }
  }

  private finish(job: Job, outcome: PxpOutcome, details: Record<string, unknown>): void {
    if (!this.pending.delete(job)) return;
    this.options.onOutcome?.('async', outcome);
    const line = { ...job.context, policyId: job.execution.policyId, action: job.execution.action, outcome, ...details };
    if (outcome === 'done') this.options.logger.info(line, 'pxp execute done');
    else if (outcome === 'refused') this.options.logger.warn(line, 'pxp execute refused');
    else this.options.logger.error(line, `pxp execute ${outcome}`);
  }
}

function body(action: string, parameters: readonly NamedValue[]): unknown {
  return { id: { urn: action }, parameters: wireParameters(parameters) };
}
