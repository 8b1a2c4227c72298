import {
  createPolicySet,
  emptyPolicySet,
  loadPolicy,
  type CompiledPolicy,
  type LoadOutcome,
  type PolicySet,
  type TimerDocument,
} from '@custos/policy-engine';
import type { Component, PolicyChange, PolicySnapshot } from '@custos/contracts';
import type { Logger } from '@custos/service-kit';
import { ComponentRegistry } from '../components/registry';
import { buildHistoryIndex, EMPTY_HISTORY_INDEX, type HistoryIndex } from '../history/plan';
import type { FollowerMetrics } from '../metrics';
import { compileTimer, isTimerId } from '../timers/schedule';
import { SnapshotError } from './messages';
import type { PolicyTransport } from './transport';

/**
 * What decisions use at one revision: the compiled policies, the deployed timers, the PIP/PXP registry and the
 * history index (what each action needs beyond pure closures). Replaced as a whole, never changed in place.
 */
export interface ActivePolicySet {
  readonly revision: number;
  readonly set: PolicySet;
  readonly timers: ReadonlyMap<string, TimerDocument>;
  readonly components: ComponentRegistry;
  readonly history: HistoryIndex;
}

/** The parts of an active set a change replaces. */
interface SetParts {
  set: PolicySet;
  timers: ReadonlyMap<string, TimerDocument>;
  components: ComponentRegistry;
}

export type ResyncReason = 'start' | 'gap' | 'message' | 'reconnect' | 'periodic' | 'overflow' | 'retry';

export interface FollowerStatus {
  ready: boolean;
  revision: number | null;
  policies: number;
  /** Deployed timers of the active set. */
  timers: number;
  /** Registered PIP and PXP components of the active set. */
  components: number;
  /** When the last snapshot was received (ISO 8601). */
  lastSyncAt: string | null;
  /** When the last change message arrived. */
  lastChangeAt: string | null;
  /** When the active set was last replaced. */
  lastAppliedAt: string | null;
  /** Arrival to application of the last applied change message, in ms. */
  lagMs: number | null;
  /** Change messages received and not yet applied. */
  pendingChanges: number;
}

export interface FollowerOptions {
  transport: PolicyTransport;
  logger: Logger;
  metrics?: FollowerMetrics;
  /** Periodic snapshot check; 0 turns it off. */
  resyncIntervalMs?: number;
  /** Backoff between failed snapshot attempts: doubling from `initialMs` up to `maxMs`. */
  backoff?: { initialMs: number; maxMs: number };
  /** The compiler; the policy engine's loadPolicy unless a test swaps it. */
  compile?: (xml: string) => LoadOutcome;
  /** Called after every swap with the new active set (the timer scheduler follows it). */
  onActivate?: (active: ActivePolicySet) => void;
}

/** The history index of the policies of a set (ids from the sources, which hold every deployed id). */
function indexOf(set: PolicySet, sources: ReadonlyMap<string, string>): HistoryIndex {
  if (set.size === 0) return EMPTY_HISTORY_INDEX;
  const policies: CompiledPolicy[] = [];
  for (const id of sources.keys()) {
    const policy = set.get(id);
    if (policy !== undefined) policies.push(policy);
  }
  return buildHistoryIndex(policies);
}

interface Received {
  change: PolicyChange;
  receivedAt: number;
}

interface Waiter {
  revision: number;
  resolve: (reached: boolean) => void;
  timer: NodeJS.Timeout;
}

/** More buffered changes than this means we are far behind: drop them and take a snapshot. */
const MAX_PENDING = 10_000;
/** Compiling a large snapshot yields to the event loop this often, so decisions keep flowing. */
const COMPILE_SLICE_MS = 20;

type SnapshotResult = 'ok' | 'retry' | 'failed';

/**
 * Follows the deployed policy set as architecture.md §2 describes: subscribe to changes first
 * (buffering them), load a snapshot, then apply changes in revision order. Duplicates are ignored,
 * a gap or a `resync` message fetches a fresh snapshot, and so do reconnects and a periodic check.
 * Every new set is built beside the active one and swapped in with one assignment; when compiling
 * fails, the last good set stays active.
 *
 * All work happens in one loop (`run`), so changes and snapshots never interleave.
 */
export class PolicySetFollower {
  private current: ActivePolicySet | undefined;
  /** XML of each policy of the active set, to reuse compiled policies whose text did not change. */
  private sources = new Map<string, string>();
  private readonly pending: Received[] = [];
  private snapshotReason: ResyncReason | undefined;
  private running = false;
  private stopped = false;
  private started = false;
  /** Failed snapshot attempts in a row (drives the backoff). */
  private failures = 0;
  /** Snapshots taken for a gap that left the same gap behind (drives the backoff too). */
  private unproductive = 0;
  /** Active revision at which the last gap snapshot was asked for. */
  private gapAskedAt: number | undefined;
  private waiters: Waiter[] = [];
  private interval: NodeJS.Timeout | undefined;
  private sleeper: { timer: NodeJS.Timeout; wake: () => void } | undefined;
  private loop: Promise<void> = Promise.resolve();
  private lastSyncAt: number | undefined;
  private lastChangeAt: number | undefined;
  private lastAppliedAt: number | undefined;
  private lagMs: number | undefined;
  private readonly compile: (xml: string) => LoadOutcome;
  private readonly backoff: { initialMs: number; maxMs: number };

  constructor(private readonly options: FollowerOptions) {
    this.compile = options.compile ?? loadPolicy;
    this.backoff = options.backoff ?? { initialMs: 100, maxMs: 10_000 };
    options.metrics?.policyRevision.set(-1);
  }

  /** The set to decide with, or undefined before the first snapshot. Read it once per decision. */
  get active(): ActivePolicySet | undefined {
    return this.current;
  }

  get ready(): boolean {
    return this.current !== undefined;
  }

  /**
   * Subscribes to changes, then starts loading the first snapshot in the background.
   * Resolves once subscribed; `ready` turns true when the snapshot is active.
   */
  async start(): Promise<void> {
    if (this.started) throw new Error('the follower was started already');
    this.started = true;
    const { transport } = this.options;
    await transport.subscribeChanges((change, receivedAt) => this.receive({ change, receivedAt }));
    transport.onReconnect(() => this.resync('reconnect'));
    const every = this.options.resyncIntervalMs ?? 30_000;
    if (every > 0) {
      this.interval = setInterval(() => this.resync('periodic'), every);
      this.interval.unref();
    }
    this.resync('start');
  }

  /** Asks for a fresh snapshot (at most one is queued at a time). */
  resync(reason: ResyncReason): void {
    if (this.stopped) return;
    this.snapshotReason ??= reason;
    this.kick();
  }

  /** Resolves true as soon as `revision` (or a later one) is active, false after `timeoutMs`. */
  waitForRevision(revision: number, timeoutMs: number): Promise<boolean> {
    if (this.current && this.current.revision >= revision) return Promise.resolve(true);
    if (this.stopped || timeoutMs <= 0) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        revision,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  status(): FollowerStatus {
    const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());
    return {
      ready: this.current !== undefined,
      revision: this.current?.revision ?? null,
      policies: this.current?.set.size ?? 0,
      timers: this.current?.timers.size ?? 0,
      components: this.current?.components.size ?? 0,
      lastSyncAt: iso(this.lastSyncAt),
      lastChangeAt: iso(this.lastChangeAt),
      lastAppliedAt: iso(this.lastAppliedAt),
      lagMs: this.lagMs ?? null,
      pendingChanges: this.pending.length,
    };
  }

  /** Resolves when the loop has nothing more to do right now (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.loop;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.interval);
    this.sleeper?.wake();
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve(false);
    }
    this.waiters = [];
    await this.options.transport.close();
    await this.loop;
  }

  private receive(received: Received): void {
    if (this.stopped) return;
    this.lastChangeAt = received.receivedAt;
    if (this.pending.length >= MAX_PENDING) {
      // Whatever we drop is in the snapshot we fetch after dropping it.
      this.options.logger.warn({ dropped: this.pending.length }, 'too many buffered policy changes; taking a snapshot');
      this.pending.length = 0;
      this.snapshotReason ??= 'overflow';
    }
    this.pending.push(received);
    this.kick();
  }

  private kick(): void {
    if (this.running || this.stopped) return;
    this.running = true;
    this.loop = this.run().then(
      () => {
        this.running = false;
      },
      (error: unknown) => {
        this.running = false;
        this.options.logger.error({ err: error }, 'policy set follower failed');
      },
    );
  }

  private async run(): Promise<void> {
    // Let the caller finish first: the loop never runs inside a message callback.
    await Promise.resolve();
    while (!this.stopped) {
      if (this.snapshotReason !== undefined) {
        const reason = this.snapshotReason;
        this.snapshotReason = undefined;
        const attempt = Math.max(this.failures, this.unproductive);
        if (attempt > 0) await this.sleep(this.delay(attempt));
        if (this.stopped) break;
        const result = await this.syncSnapshot(reason);
        if (result === 'ok') {
          this.failures = 0;
        } else {
          this.failures++;
          // A transport failure is retried; a compile failure waits for the next trigger.
          if (result === 'retry') this.snapshotReason ??= 'retry';
        }
        continue;
      }
      if (!this.current) {
        // No set yet (the first snapshot failed to compile): keep the changes for after the next snapshot.
        break;
      }
      const next = this.pending.shift();
      if (!next) break;
      this.apply(next, this.current);
    }
  }

  private apply(received: Received, active: ActivePolicySet): void {
    const { change, receivedAt } = received;
    const { logger } = this.options;
    if (change.revision <= active.revision) {
      logger.debug({ revision: change.revision, active: active.revision }, 'policy change already applied');
      return;
    }
    if (change.revision > active.revision + 1 || change.type === 'resync') {
      // Keep the change: if the snapshot does not cover it, it is applied (or asked about) again afterwards.
      this.pending.unshift(received);
      // Asked already at this revision and the snapshot did not move us on: back off before asking again.
      this.unproductive = this.gapAskedAt === active.revision ? this.unproductive + 1 : 0;
      this.gapAskedAt = active.revision;
      const reason: ResyncReason = change.type === 'resync' && change.revision === active.revision + 1 ? 'message' : 'gap';
      if (reason === 'gap') logger.info({ revision: change.revision, active: active.revision }, 'gap in policy changes; taking a snapshot');
      this.snapshotReason ??= reason;
      return;
    }
    const parts: SetParts = { set: active.set, timers: active.timers, components: active.components };
    if (change.type === 'component' || change.type === 'unregister') {
      parts.components =
        change.type === 'component' ? active.components.with(change.component) : active.components.without(change.componentId);
      this.activate(change.revision, parts, this.sources, change.type, receivedAt);
      return;
    }
    if (change.type === 'revoke') {
      const sources = new Map(this.sources);
      sources.delete(change.policyId);
      if (isTimerId(change.policyId)) {
        const timers = new Map(active.timers);
        timers.delete(change.policyId);
        parts.timers = timers;
      } else {
        parts.set = active.set.without([change.policyId]);
      }
      this.activate(change.revision, parts, sources, 'revoke', receivedAt);
      return;
    }
    const { id, xml } = change.policy;
    if (isTimerId(id)) {
      const timer = this.compileTimerOne(id, xml, 'change');
      // Not compiled: the last good set stays; the next change shows a gap and the snapshot tries again.
      if (!timer) return;
      parts.timers = new Map(active.timers).set(id, timer);
    } else {
      const compiled = this.compileOne(id, xml, 'change');
      if (!compiled) return;
      parts.set = active.set.with([compiled]);
    }
    const sources = new Map(this.sources);
    sources.set(id, xml);
    this.activate(change.revision, parts, sources, 'deploy', receivedAt);
  }

  private async syncSnapshot(reason: ResyncReason): Promise<SnapshotResult> {
    const { logger, metrics, transport } = this.options;
    metrics?.resyncs.inc({ reason });
    let snapshot: PolicySnapshot;
    try {
      snapshot = await transport.fetchSnapshot();
    } catch (error) {
      // An expected condition (pap down, slow or confused) needs no stack trace.
      const detail = error instanceof SnapshotError ? { problem: error.message } : { err: error };
      logger.warn({ ...detail, reason, attempt: this.failures + 1 }, 'policy snapshot could not be fetched; retrying');
      return 'retry';
    }
    if (this.stopped) return 'ok';
    this.lastSyncAt = Date.now();
    const active = this.current;
    if (active && snapshot.revision <= active.revision) {
      if (snapshot.revision < active.revision) {
        logger.warn({ snapshot: snapshot.revision, active: active.revision }, 'policy snapshot is older than the active set; kept the active set');
      }
      return 'ok';
    }
    const started = Date.now();
    const built = await this.compileSnapshot(snapshot);
    if (!built || this.stopped) return built ? 'ok' : 'failed';
    const components = new ComponentRegistry(new Map((snapshot.components ?? []).map((c: Component) => [c.id.identifier, c])));
    this.activate(snapshot.revision, { set: built.set, timers: built.timers, components }, built.sources, 'snapshot');
    logger.info(
      {
        revision: snapshot.revision,
        policies: built.set.size,
        timers: built.timers.size,
        components: components.size,
        compiled: built.compiled,
        reused: built.reused,
        ms: Date.now() - started,
        reason,
      },
      'policy snapshot active',
    );
    return 'ok';
  }

  private async compileSnapshot(
    snapshot: PolicySnapshot,
  ): Promise<
    { set: PolicySet; timers: Map<string, TimerDocument>; sources: Map<string, string>; compiled: number; reused: number } | undefined
  > {
    const policies: CompiledPolicy[] = [];
    const timers = new Map<string, TimerDocument>();
    const sources = new Map<string, string>();
    let compiled = 0;
    let reused = 0;
    let slice = Date.now();
    for (const { id, xml } of snapshot.policies) {
      if (sources.has(id)) {
        this.compileFailed(id, 'snapshot', [`the snapshot holds \`${id}\` twice`], snapshot.revision);
        return undefined;
      }
      if (isTimerId(id)) {
        const previousTimer = this.sources.get(id) === xml ? this.current?.timers.get(id) : undefined;
        const timer = previousTimer ?? this.compileTimerOne(id, xml, 'snapshot', snapshot.revision);
        if (!timer) return undefined;
        timers.set(id, timer);
        sources.set(id, xml);
        continue;
      }
      // Reuse is decided against the set active now; it cannot change while this loop runs.
      const previous = this.sources.get(id) === xml ? this.current?.set.get(id) : undefined;
      let policy = previous;
      if (policy) {
        reused++;
      } else {
        policy = this.compileOne(id, xml, 'snapshot', snapshot.revision);
        if (!policy) return undefined;
        compiled++;
      }
      policies.push(policy);
      sources.set(id, xml);
      if (Date.now() - slice > COMPILE_SLICE_MS) {
        await new Promise((resolve) => setImmediate(resolve));
        if (this.stopped) return undefined;
        slice = Date.now();
      }
    }
    return { set: policies.length === 0 ? emptyPolicySet() : createPolicySet(policies), timers, sources, compiled, reused };
  }

  private compileOne(id: string, xml: string, source: 'change' | 'snapshot', revision?: number): CompiledPolicy | undefined {
    let outcome: LoadOutcome;
    try {
      outcome = this.compile(xml);
    } catch (error) {
      this.compileFailed(id, source, [`the compiler threw: ${(error as Error).message}`], revision);
      return undefined;
    }
    if (!outcome.ok) {
      this.compileFailed(
        id,
        source,
        outcome.diagnostics.map((d) => `${d.line ?? '?'}:${d.column ?? '?'} ${d.code}: ${d.message}`),
        revision,
      );
      return undefined;
    }
    if (outcome.policy.id !== id) {
      this.compileFailed(id, source, [`the xml declares the id \`${outcome.policy.id}\``], revision);
      return undefined;
    }
    return outcome.policy;
  }

  /** A deployed timer document: read with the engine's timer reader, its schedule checked as pap did. */
  private compileTimerOne(id: string, xml: string, source: 'change' | 'snapshot', revision?: number): TimerDocument | undefined {
    let outcome;
    try {
      outcome = compileTimer(xml);
    } catch (error) {
      this.compileFailed(id, source, [`the timer reader threw: ${(error as Error).message}`], revision);
      return undefined;
    }
    if (!outcome.ok) {
      this.compileFailed(id, source, outcome.problems, revision);
      return undefined;
    }
    if (outcome.timer.id !== id) {
      this.compileFailed(id, source, [`the xml declares the id \`${outcome.timer.id}\``], revision);
      return undefined;
    }
    return outcome.timer;
  }

  private compileFailed(policyId: string, source: 'change' | 'snapshot', problems: string[], revision?: number): void {
    this.options.metrics?.compileFailures.inc({ source });
    this.options.logger.error(
      { policyId, source, revision, problems: problems.slice(0, 20), active: this.current?.revision ?? null },
      'policy failed to compile; the last good set stays active',
    );
  }

  /** The one place the active set changes: a single assignment, then the waiters. */
  private activate(revision: number, parts: SetParts, sources: Map<string, string>, source: string, receivedAt?: number): void {
    const previous = this.current;
    // The history index depends on the policies only: rebuilt when they changed.
    const history = previous !== undefined && previous.set === parts.set ? previous.history : indexOf(parts.set, sources);
    this.current = { revision, set: parts.set, timers: parts.timers, components: parts.components, history };
    this.sources = sources;
    this.unproductive = 0;
    const now = Date.now();
    this.lastAppliedAt = now;
    if (receivedAt !== undefined) this.lagMs = now - receivedAt;
    this.options.metrics?.policyRevision.set(revision);
    this.options.logger.debug({ revision, policies: parts.set.size, timers: parts.timers.size, source }, 'policy set swapped');
    this.options.onActivate?.(this.current);
    if (this.waiters.length > 0) {
      const still: Waiter[] = [];
      for (const waiter of this.waiters) {
        if (waiter.revision <= revision) {
          clearTimeout(waiter.timer);
          waiter.resolve(true);
        } else {
          still.push(waiter);
        }
      }
      this.waiters = still;
    }
  }

  private delay(attempt: number): number {
    const base = Math.min(this.backoff.initialMs * 2 ** Math.min(attempt - 1, 20), this.backoff.maxMs);
    return Math.round(base * (0.8 + Math.random() * 0.4));
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleeper = undefined;
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleeper = { timer, wake };
    });
  }
}
