import type { LoadOutcome } from '@custos/policy-engine';
import { SnapshotError, isSnapshotUnchanged, type PolicyChange, type PolicySnapshot, type SnapshotAnswer } from '@custos/contracts';
import { backoffDelay, sleep, type Logger } from '@custos/service-kit';
import type { FollowerMetrics } from '../metrics';
import { ActiveSet, type ActivePolicySet, type ActiveSetStatus, type ResyncReason } from './active-set';
import { explainable } from './explanation-sources';
import type { PolicyTransport } from './transport';

export type { ActivePolicySet } from './active-set';
export type { ResyncReason } from './active-set';

export interface FollowerOptions {
  transport: PolicyTransport;
  logger: Logger;
  metrics?: FollowerMetrics;
  /** Periodic snapshot check; 0 turns it off. */
  resyncIntervalMs?: number;
  /** Backoff between failed snapshot attempts: doubling from `initialMs` up to `maxMs`. */
  backoff?: { initialMs: number; maxMs: number };
  /** The policy compiler; the policy engine's loadPolicy unless a test swaps it. */
  compile?: (xml: string) => LoadOutcome;
  /** Called after every swap with the new active set (the timer scheduler follows it). */
  onActivate?: (active: ActivePolicySet) => void;
}

/** Where this replica's policy set stands (GET /status without the replica's own fields). */
export interface FollowerStatus extends ActiveSetStatus {
  /** When the last snapshot was received (ISO 8601). */
  lastSyncAt: string | null;
  /** When the last change message arrived. */
  lastChangeAt: string | null;
  /** Change messages received and not yet applied. */
  pendingChanges: number;
}

interface Received {
  change: PolicyChange;
  receivedAt: number;
}

/** More buffered changes than this means we are far behind: drop them and take a snapshot. */
const MAX_PENDING = 10_000;

type SnapshotResult = 'ok' | 'retry' | 'failed';

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/**
 * Follows the deployed set of pap as architecture.md §2 describes it: subscribe to changes first (buffering them),
 * load a snapshot, then hand each change in revision order to the ActiveSet, which builds the next set beside the
 * active one and swaps it in (when compiling fails, the last good set stays). Duplicates are dropped. Changes missed
 * on the subscription (a gap, a reconnect) are first read back from pap's JetStream stream when the transport can
 * (`replayChanges`); a gap the stream did not fill (the changes aged out), a `resync` message, a reconnect and a
 * periodic check fetch a snapshot, the same one a replica starts from. Failed snapshot attempts are retried with
 * backoff, and so are gap snapshots that did not cover the gap; meanwhile changes that follow the active set are still
 * applied, so a replay helps even while pap is down.
 *
 * All work happens in one loop (`run`), so changes and snapshots never interleave.
 */
export class PolicySetFollower {
  private readonly set: ActiveSet;
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
  /** Changes may have been missed: read them back from the stream before anything else. */
  private replayWanted = false;
  /** Active revision of the last replay: a gap still there after it needs the snapshot. */
  private replayedAt: number | undefined;
  private interval: NodeJS.Timeout | undefined;
  /** Aborted by `stop`: wakes a backoff sleep. */
  private readonly stopping = new AbortController();
  private loop: Promise<void> = Promise.resolve();
  private lastSyncAt: number | undefined;
  private lastChangeAt: number | undefined;
  private readonly backoff: { initialMs: number; maxMs: number };

  constructor(private readonly options: FollowerOptions) {
    this.backoff = options.backoff ?? { initialMs: 100, maxMs: 10_000 };
    const { logger, metrics, onActivate, compile } = options;
    this.set = new ActiveSet({ logger, metrics, onActivate, compile });
  }

  /** The set to decide with, or undefined before the first snapshot. Read it once per decision. */
  get active(): ActivePolicySet | undefined {
    return this.set.active;
  }

  get ready(): boolean {
    return this.set.active !== undefined;
  }

  /** Resolves true as soon as `revision` (or a later one) is active, false after `timeoutMs`. */
  waitForRevision(revision: number, timeoutMs: number): Promise<boolean> {
    return this.set.waitForRevision(revision, timeoutMs);
  }

  /**
   * Undefined when the policies deciding `action` in `active` can be explained now; else a promise that settles once
   * they can (their documents fetched from pap again: the set keeps no policy text), or rejects with a 503 problem.
   */
  explainable(active: ActivePolicySet, action: string): Promise<void> | undefined {
    return explainable(this.options.transport, active, action, () => ({ active: this.set.active, sources: this.set.sources }));
  }

  /**
   * Subscribes to changes, then starts loading the first snapshot in the background.
   * Resolves once subscribed.
   */
  async start(): Promise<void> {
    if (this.started) throw new Error('the follower was started already');
    this.started = true;
    const { transport } = this.options;
    await transport.subscribeChanges((change, receivedAt) => this.receive({ change, receivedAt }));
    transport.onReconnect(() => {
      this.replayWanted = transport.replayChanges !== undefined;
      this.resync('reconnect');
    });
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

  status(): FollowerStatus {
    const set = this.set.status();
    return {
      ready: set.ready,
      revision: set.revision,
      policies: set.policies,
      timers: set.timers,
      components: set.components,
      lastSyncAt: iso(this.lastSyncAt),
      lastChangeAt: iso(this.lastChangeAt),
      lastAppliedAt: set.lastAppliedAt,
      lagMs: set.lagMs,
      pendingChanges: this.pending.length,
    };
  }

  /** Resolves when the follower has nothing more to do right now (for tests and shutdown). */
  async idle(): Promise<void> {
    while (this.running) await this.loop;
  }

  async stop(): Promise<void> {
    this.set.close();
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.interval);
    this.stopping.abort();
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
      const active = this.set.revision;
      if (this.replayWanted && active !== undefined) {
        this.replayWanted = false;
        await this.replay(active);
        continue;
      }
      // A change that follows the active set needs nobody: apply it before (or between attempts at) a snapshot.
      const head = this.pending[0];
      if (active !== undefined && head !== undefined && this.follows(head.change, active)) {
        this.pending.shift();
        this.next(head, active);
        continue;
      }
      if (this.snapshotReason !== undefined) {
        const reason = this.snapshotReason;
        this.snapshotReason = undefined;
        const attempt = Math.max(this.failures, this.unproductive);
        if (attempt > 0) await sleep(backoffDelay({ ...this.backoff, jitter: 0.2 }, attempt), this.stopping.signal);
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
      if (active === undefined) {
        // No set yet (the first snapshot failed to compile): keep the changes for after the next snapshot.
        break;
      }
      const next = this.pending.shift();
      if (!next) break;
      this.next(next, active);
    }
  }

  /** Whether `change` is a repeat or the very next change (a `resync` is neither: it needs the snapshot). */
  private follows(change: PolicyChange, active: number): boolean {
    return change.revision <= active || (change.revision === active + 1 && change.type !== 'resync');
  }

  /** Puts the changes after `active` that the stream still holds at the front of the queue. */
  private async replay(active: number): Promise<void> {
    const { logger, transport } = this.options;
    this.replayedAt = active;
    let changes: PolicyChange[];
    try {
      changes = (await transport.replayChanges?.(active)) ?? [];
    } catch (error) {
      // No stream (JetStream off, pap never published, a test pap): the snapshot covers it.
      logger.debug({ err: error, active }, 'policy changes could not be replayed from the stream');
      return;
    }
    const missed = changes.filter((change) => change.revision > active);
    const first = missed[0];
    const last = missed[missed.length - 1];
    if (this.stopped || first === undefined || last === undefined) return;
    const receivedAt = Date.now();
    this.pending.unshift(...missed.map((change) => ({ change, receivedAt })));
    logger.info({ from: first.revision, to: last.revision, changes: missed.length, active }, 'policy changes replayed from the stream');
  }

  private next(received: Received, active: number): void {
    const { change, receivedAt } = received;
    const { logger } = this.options;
    if (change.revision <= active) {
      logger.debug({ revision: change.revision, active }, 'policy change already applied');
      return;
    }
    if (change.revision > active + 1 || change.type === 'resync') {
      // Keep the change: if the snapshot does not cover it, it is applied (or asked about) again afterwards.
      this.pending.unshift(received);
      if (change.type !== 'resync' && this.options.transport.replayChanges !== undefined && this.replayedAt !== active) {
        // The stream may hold what is missing: cheaper than a snapshot, and it works while pap is down.
        this.replayWanted = true;
        return;
      }
      // Asked already at this revision and the snapshot did not move us on: back off before asking again.
      this.unproductive = this.gapAskedAt === active ? this.unproductive + 1 : 0;
      this.gapAskedAt = active;
      const reason: ResyncReason = change.type === 'resync' && change.revision === active + 1 ? 'message' : 'gap';
      if (reason === 'gap') logger.info({ revision: change.revision, active }, 'gap in policy changes; taking a snapshot');
      this.snapshotReason ??= reason;
      return;
    }
    // Not applied (it did not compile): the last good set stays; the next change shows a gap and the snapshot tries again.
    if (this.set.applyChange(change, receivedAt)) this.unproductive = 0;
  }

  private async syncSnapshot(reason: ResyncReason): Promise<SnapshotResult> {
    const { logger, metrics, transport } = this.options;
    metrics?.resyncs.inc({ reason });
    let answer: SnapshotAnswer;
    // Begun before the fetch, against the set active now: nothing else runs on this loop until the fetch is done.
    const intake = this.set.receiveSnapshot();
    // With the active revision, pap answers an unchanged set in one small message instead of sending all of it.
    const known = this.set.revision;
    try {
      answer = await transport.fetchSnapshot((policies) => intake.add(policies), known);
    } catch (error) {
      // An expected condition (pap down, slow or confused) needs no stack trace.
      const detail = error instanceof SnapshotError ? { problem: error.message } : { err: error };
      logger.warn({ ...detail, reason, attempt: this.failures + 1 }, 'policy snapshot could not be fetched; retrying');
      return 'retry';
    }
    if (this.stopped) return 'ok';
    this.lastSyncAt = Date.now();
    if (isSnapshotUnchanged(answer)) {
      // Equal revisions are the same set (revisions are gap-free, one per change); a full snapshot would be dropped too.
      metrics?.unchangedSnapshots.inc({ reason });
      if (answer.revision !== known) logger.warn({ answered: answer.revision, known }, 'pap answered unchanged for another revision; ignored');
      return 'ok';
    }
    const snapshot: PolicySnapshot = answer;
    const active = this.set.revision;
    if (active !== undefined && snapshot.revision <= active) {
      if (snapshot.revision < active) {
        logger.warn({ snapshot: snapshot.revision, active }, 'policy snapshot is older than the active set; kept the active set');
      }
      return 'ok';
    }
    const applied = await intake.apply(snapshot, reason);
    if (applied) this.unproductive = 0;
    return applied || this.stopped ? 'ok' : 'failed';
  }
}
