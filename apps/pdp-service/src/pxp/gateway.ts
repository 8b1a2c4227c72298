import { parseUrn, wireParameters } from '@custos/contracts';
import type { NamedValue, PlannedExecution, PxpExecutor } from '@custos/policy-engine';
import { backoffDelay, deadlineIn, sleep, uuidv7 } from '@custos/service-kit';
import type { ComponentRegistry } from '../components/registry';
import type { PgExecutionStore, StoredExecution } from './execution-store';
import {
  executeBody,
  IDEMPOTENCY_HEADER,
  type DurableExecutionOptions,
  type ExecutionContext,
  type Job,
  type PxpGatewayOptions,
  type PxpOutcome,
} from './gateway-types';

export { type DurableExecutionOptions, type ExecutionContext, type PxpGatewayOptions, type PxpOutcome } from './gateway-types';

/** Longest wait between two attempts, however many were made. */
const MAX_BACKOFF_MS = 60_000;

/**
 * Calls PXPs (policy-language.md §8, api.md §6: `POST <url>/execute` with `{"id": {"urn": action}, "parameters": [...]}`,
 * answer a JSON boolean).
 *
 * - `executor(registry)`: the engine's port for `execute` inside a condition: one attempt with `syncTimeoutMs`; the
 *   answer counts only when it is `true`.
 * - `dispatch(...)`: the executes of a decision. With `durable`, they are first written to pdp.executions in one
 *   statement, claimed by this replica (the caller awaits that before answering); then each is tried at once and
 *   retried on failure with exponential backoff up to `attempts`, every outcome stored: `done`, `refused` (the PXP
 *   answered anything but true: not retried), `failed` (attempts spent, or no PXP registered: kept, retryable). A
 *   replica that dies leaves its claims to expire; `poll` claims due executes of any replica. Every attempt carries
 *   `Idempotency-Key: <execution id>`. If the write fails (database down), the executes are delivered from memory,
 *   as without `durable`. Outcomes are logged with the decision id: `pxp execute done`, `refused`, `failed`,
 *   `unregistered`; `drain` at shutdown gives claims back (`handed-over`) or logs memory-only ones as `abandoned`.
 */
export class PxpGateway {
  private readonly pending = new Set<Job>();
  /** Durable jobs by execution id, so a claim of a row already running here starts nothing. */
  private readonly byId = new Map<string, Job>();
  private readonly running = new Set<Promise<void>>();
  private stopping = false;
  private poller: NodeJS.Timeout | undefined;
  private polling: Promise<number> | undefined;
  private polls = 0;

  constructor(private readonly options: PxpGatewayOptions) {}

  get size(): number {
    return this.pending.size;
  }

  private now(): number {
    return this.options.durable?.now?.() ?? Date.now();
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
      const answer = await target.post(executeBody(action, parameters), this.options.syncTimeoutMs);
      this.options.onOutcome?.('sync', answer === true ? 'done' : 'refused');
      return answer === true;
    } catch (error) {
      this.options.onOutcome?.('sync', 'failed');
      this.options.logger.warn({ action, component: endpoint.componentId, problem: (error as Error).message }, 'pxp call in a condition failed; the condition is false');
      return false;
    }
  }

  /**
   * The executes of one decision. Without `durable` they start at once and nothing is returned. With it, the
   * returned promise settles once they are stored (or known not to be); delivery starts right after, so the caller
   * can answer first. It never rejects.
   */
  dispatch(registry: ComponentRegistry, executions: readonly PlannedExecution[], context: ExecutionContext): Promise<void> | undefined {
    if (executions.length === 0) return undefined;
    const durable = this.options.durable;
    if (durable === undefined || this.stopping) {
      for (const execution of executions) this.enqueue(this.memoryJob(registry, execution, context));
      return undefined;
    }
    return this.persist(durable, registry, executions, context);
  }

  private async persist(
    durable: DurableExecutionOptions,
    registry: ComponentRegistry,
    executions: readonly PlannedExecution[],
    context: ExecutionContext,
  ): Promise<void> {
    const rows = executions.map((execution) => ({
      id: uuidv7(),
      decisionId: context.decisionId,
      timerId: context.timerId ?? null,
      policyId: execution.policyId,
      action: execution.action,
      solution: parseUrn('action', execution.action)?.solution ?? '',
      parameters: wireParameters(execution.parameters),
    }));
    try {
      await durable.store.insert(rows, this.options.attempts, this.now(), durable.leaseMs);
    } catch (error) {
      this.options.logger.error(
        { ...context, err: error, executions: executions.length },
        'pxp executes could not be stored; delivering them from memory only',
      );
      for (const execution of executions) {
        this.options.onOutcome?.('async', 'unpersisted');
        this.enqueue(this.memoryJob(registry, execution, context));
      }
      return;
    }
    // After the caller's answer: its continuation runs before this.
    setImmediate(() => {
      for (const row of rows) {
        this.enqueue({
          context,
          policyId: row.policyId,
          action: row.action,
          body: { id: { urn: row.action }, parameters: row.parameters },
          registry,
          id: row.id,
          maxAttempts: this.options.attempts,
          attempt: 0,
        });
      }
    });
  }

  private memoryJob(registry: ComponentRegistry, execution: PlannedExecution, context: ExecutionContext): Job {
    return {
      context,
      policyId: execution.policyId,
      action: execution.action,
      body: executeBody(execution.action, execution.parameters),
      registry,
      id: undefined,
      maxAttempts: this.options.attempts,
      attempt: 0,
    };
  }

  private enqueue(job: Job): void {
    // Already running here: this replica's poll claimed the row before its insert's own start came (a lease that ran
    // out while the replica stalled). Starting it again would deliver it twice from one replica.
    if (job.id !== undefined && this.byId.has(job.id)) return;
    if (job.id === undefined && (this.stopping || this.pending.size >= (this.options.maxPending ?? 100_000))) {
      this.options.onOutcome?.('async', 'dropped');
      this.options.logger.error(
        { ...job.context, policyId: job.policyId, action: job.action, reason: this.stopping ? 'shutting down' : 'too many pending executes' },
        'pxp execute dropped',
      );
      return;
    }
    if (job.id !== undefined && this.pending.size >= (this.options.maxPending ?? 100_000)) {
      // Stored: a later poll delivers it once its claim has run out, rather than this replica holding more in memory.
      this.options.logger.warn({ ...job.context, executionId: job.id }, 'too many pending executes; this one is delivered by a later poll');
      return;
    }
    if (job.id !== undefined && this.stopping) {
      // Stored and claimed: giving the claim back hands it to another replica (or to this one after a restart).
      void this.handOver([job]);
      return;
    }
    this.pending.add(job);
    if (job.id !== undefined) this.byId.set(job.id, job);
    this.start(job);
  }

  /** Starts claiming due executes of any replica every `pollMs`. */
  startPolling(): void {
    const durable = this.options.durable;
    if (durable === undefined || this.poller !== undefined) return;
    this.poller = setInterval(() => {
      if (this.polling === undefined) this.polling = this.poll().finally(() => (this.polling = undefined));
    }, durable.pollMs);
    this.poller.unref();
  }

  /** One pass: claims due executes (expired claims included) and starts them; counts and prunes now and then. */
  async poll(): Promise<number> {
    const durable = this.options.durable;
    if (durable === undefined || this.stopping) return 0;
    let started = 0;
    try {
      const registry = durable.registry();
      const room = (this.options.maxPending ?? 100_000) - this.pending.size;
      if (registry !== undefined && room > 0) {
        const claimed = await durable.store.claimDue(Math.min(100, room), this.now(), durable.leaseMs);
        for (const row of claimed) {
          if (this.byId.has(row.id)) continue;
          this.enqueue(this.claimedJob(row, registry));
          started++;
        }
      }
      if (this.polls % 10 === 0) durable.onCounts?.(await durable.store.counts());
      if (this.polls % 600 === 0) await durable.store.prune(this.now() - (durable.keepFinishedMs ?? 86_400_000));
    } catch (error) {
      this.options.logger.warn({ err: error }, 'pending pxp executes could not be claimed; trying again');
    } finally {
      this.polls++;
    }
    return started;
  }

  private claimedJob(row: StoredExecution, registry: ComponentRegistry): Job {
    return {
      context: { decisionId: row.decisionId, ...(row.timerId === null ? {} : { timerId: row.timerId }) },
      policyId: row.policyId,
      action: row.action,
      body: { id: { urn: row.action }, parameters: row.parameters },
      registry,
      id: row.id,
      maxAttempts: row.maxAttempts,
      attempt: row.attempts,
    };
  }

  /**
   * Shutdown: stops polling, waits up to `timeoutMs` for running executes (those waiting for a retry start now),
   * then gives the claims of stored ones back and logs memory-only ones still pending as abandoned.
   */
  async drain(timeoutMs: number): Promise<void> {
    this.stopping = true;
    clearInterval(this.poller);
    await this.polling;
    const deadline = deadlineIn(timeoutMs);
    while (this.pending.size > 0 && !deadline.passed()) {
      for (const job of this.pending) {
        if (job.timer !== undefined) {
          clearTimeout(job.timer);
          job.timer = undefined;
          this.start(job);
        }
      }
      const running = [...this.running];
      if (running.length === 0) break;
      await Promise.race([Promise.allSettled(running), sleep(Math.max(1, deadline.remainingMs()))]);
    }
    const left = [...this.pending];
    for (const job of left) clearTimeout(job.timer);
    const stored = left.filter((job) => job.id !== undefined);
    for (const job of left) if (job.id === undefined) this.finish(job, 'abandoned', { attempts: job.attempt });
    await this.handOver(stored);
  }

  private async handOver(jobs: readonly Job[]): Promise<void> {
    if (jobs.length === 0) return;
    const ids = jobs.flatMap((job) => (job.id === undefined ? [] : [job.id]));
    try {
      await this.options.durable?.store.release(ids);
    } catch (error) {
      this.options.logger.warn({ err: error }, 'claims could not be given back; they expire with their lease');
    }
    for (const job of jobs) {
      this.pending.delete(job);
      if (job.id !== undefined) this.byId.delete(job.id);
      this.options.onOutcome?.('async', 'handed-over');
      this.options.logger.info({ ...job.context, executionId: job.id, policyId: job.policyId, action: job.action }, 'pxp execute handed over');
    }
  }

  private start(job: Job): void {
    const task = this.attempt(job).finally(() => this.running.delete(task));
    this.running.add(task);
  }

  private async attempt(job: Job): Promise<void> {
    const solution = parseUrn('action', job.action)?.solution ?? '';
    const endpoint = job.registry.pxp(solution, job.action);
    const target = endpoint === undefined ? undefined : this.options.targets.forComponentUrl(endpoint.url);
    if (endpoint === undefined || target === undefined) {
      this.finish(job, 'unregistered', {});
      await this.store(job, (store, now) => store.finish(job.id ?? '', 'failed', job.attempt, `no pxp is registered for \`${job.action}\``, now));
      return;
    }
    job.attempt++;
    try {
      const headers = job.id === undefined ? undefined : { [IDEMPOTENCY_HEADER]: job.id };
      const answer = await target.post(job.body, this.options.timeoutMs, headers);
      const outcome = answer === true ? 'done' : 'refused';
      await this.store(job, (store, now) => store.finish(job.id ?? '', outcome, job.attempt, outcome === 'refused' ? 'the pxp answered other than true' : null, now));
      this.finish(job, outcome, { attempts: job.attempt, component: endpoint.componentId });
    } catch (error) {
      const problem = (error as Error).message;
      if (job.attempt >= job.maxAttempts) {
        await this.store(job, (store, now) => store.finish(job.id ?? '', 'failed', job.attempt, problem, now));
        this.finish(job, 'failed', { attempts: job.attempt, component: endpoint.componentId, problem });
        return;
      }
      const delay = this.stopping
        ? 0
        : backoffDelay({ initialMs: this.options.backoffMs, maxMs: MAX_BACKOFF_MS, jitter: 0.2 }, job.attempt);
      const lease = this.options.durable?.leaseMs ?? 0;
      await this.store(job, (store, now) => store.postpone(job.id ?? '', job.attempt, now + delay, now + delay + lease, problem, now));
      this.options.logger.info(
        { ...job.context, policyId: job.policyId, action: job.action, attempt: job.attempt, retryInMs: delay, problem },
        'pxp execute failed; retrying',
      );
      if (!this.pending.has(job)) return;
      job.timer = setTimeout(() => {
        job.timer = undefined;
        this.start(job);
      }, delay);
    }
  }

  /**
   * Stores what became of a stored job. A failure is logged and otherwise ignored: the claim then expires and the
   * execute is delivered again (at least once), which is what the idempotency key is for.
   */
  private async store(job: Job, write: (store: PgExecutionStore, now: number) => Promise<void>): Promise<void> {
    const store = this.options.durable?.store;
    if (job.id === undefined || store === undefined) return;
    try {
      await write(store, this.now());
    } catch (error) {
      this.options.logger.warn({ err: error, executionId: job.id }, 'pxp execute outcome could not be stored; it is delivered again after its claim expires');
    }
  }

  private finish(job: Job, outcome: PxpOutcome, details: Record<string, unknown>): void {
    if (!this.pending.delete(job)) return;
    if (job.id !== undefined) this.byId.delete(job.id);
    this.options.onOutcome?.('async', outcome);
    const line = { ...job.context, ...(job.id === undefined ? {} : { executionId: job.id }), policyId: job.policyId, action: job.action, outcome, ...details };
    if (outcome === 'done') this.options.logger.info(line, 'pxp execute done');
    else if (outcome === 'refused') this.options.logger.warn(line, 'pxp execute refused');
    else this.options.logger.error(line, `pxp execute ${outcome}`);
  }
}
