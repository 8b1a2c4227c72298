import type { LoadOutcome } from '@custos/policy-engine';
import type { PolicySnapshot } from '@custos/contracts';
import type { Logger } from '@custos/service-kit';
import type { FollowerMetrics } from '../metrics';
import { ActiveSet, type ActivePolicySet, type ActiveSetStatus } from './active-set';
import { ChangeStream, type ChangeStreamStatus, type NextChange, type ResyncReason, type SnapshotIntake } from './change-stream';
import { explainable } from './explanation-sources';
import { SetBuilder, type SnapshotBuild } from './set-builder';
import type { PolicyTransport } from './transport';

export type { ActivePolicySet } from './active-set';
export type { ResyncReason } from './change-stream';

/** Where this replica's policy set stands (GET /status without the replica's own fields). */
export type FollowerStatus = ActiveSetStatus & ChangeStreamStatus;

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

/**
 * Follows the deployed set of pap: three parts with one job each, joined here.
 * - ChangeStream: changes in revision order, gaps, duplicates, snapshots with backoff and what triggers them;
 * - SetBuilder: the next set from a change or a snapshot, one compiler per document kind;
 * - ActiveSet: the set decisions read, swapped in with one assignment, its waiters and status.
 * Every new set is built beside the active one; when compiling fails, the last good set stays active.
 */
export class PolicySetFollower {
  private readonly activeSet: ActiveSet;
  private readonly builder: SetBuilder;
  private readonly stream: ChangeStream;
  private readonly logger: Logger;
  private readonly transport: PolicyTransport;

  constructor(options: FollowerOptions) {
    const { logger, metrics } = options;
    this.logger = logger;
    this.transport = options.transport;
    this.activeSet = new ActiveSet({ logger, metrics, onActivate: options.onActivate });
    this.builder = new SetBuilder({ compile: options.compile, onFailure: (failure) => this.activeSet.reject(failure) });
    this.stream = new ChangeStream({
      transport: options.transport,
      logger,
      metrics,
      resyncIntervalMs: options.resyncIntervalMs,
      backoff: options.backoff,
      target: {
        revision: () => this.activeSet.revision,
        applyChange: (change, receivedAt) => this.applyChange(change, receivedAt),
        receiveSnapshot: () => this.receiveSnapshot(),
      },
    });
  }

  /** The set to decide with, or undefined before the first snapshot. Read it once per decision. */
  get active(): ActivePolicySet | undefined {
    return this.activeSet.active;
  }

  get ready(): boolean {
    return this.activeSet.active !== undefined;
  }

  /**
   * Subscribes to changes, then starts loading the first snapshot in the background.
   * Resolves once subscribed; `ready` turns true when the snapshot is active.
   */
  start(): Promise<void> {
    return this.stream.start();
  }

  /** Asks for a fresh snapshot (at most one is queued at a time). */
  resync(reason: ResyncReason): void {
    this.stream.resync(reason);
  }

  /** Resolves true as soon as `revision` (or a later one) is active, false after `timeoutMs`. */
  waitForRevision(revision: number, timeoutMs: number): Promise<boolean> {
    return this.activeSet.waitForRevision(revision, timeoutMs);
  }

  /**
   * Undefined when the policies deciding `action` in `active` can be explained now; else a promise that settles once
   * they can (their documents fetched from pap again: the set keeps no policy text), or rejects with a 503 problem.
   */
  explainable(active: ActivePolicySet, action: string): Promise<void> | undefined {
    return explainable(this.transport, active, action, () => ({ active: this.activeSet.active, sources: this.activeSet.sources }));
  }

  status(): FollowerStatus {
    const set = this.activeSet.status();
    const stream = this.stream.status();
    return {
      ready: set.ready,
      revision: set.revision,
      policies: set.policies,
      timers: set.timers,
      components: set.components,
      lastSyncAt: stream.lastSyncAt,
      lastChangeAt: stream.lastChangeAt,
      lastAppliedAt: set.lastAppliedAt,
      lagMs: set.lagMs,
      pendingChanges: stream.pendingChanges,
    };
  }

  /** Resolves when the follower has nothing more to do right now (for tests and shutdown). */
  idle(): Promise<void> {
    return this.stream.idle();
  }

  async stop(): Promise<void> {
    this.activeSet.close();
    await this.stream.stop();
  }

  private applyChange(change: NextChange, receivedAt: number): boolean {
    const active = this.activeSet.active;
    if (active === undefined) return false;
    const parts = this.builder.applyChange({ ...active, sources: this.activeSet.sources }, change);
    if (parts === undefined) return false;
    this.activeSet.swap(change.revision, parts, change.type, receivedAt);
    return true;
  }

  /**
   * Compiles a snapshot's documents as they arrive (so their parsed form dies young and compiling overlaps the fetch);
   * the set is swapped in only by `apply`, once the whole snapshot is in.
   */
  private receiveSnapshot(): SnapshotIntake {
    const active = this.activeSet.active;
    const build = this.builder.startSnapshot(active && { ...active, sources: this.activeSet.sources });
    let compileMs = 0;
    return {
      add: (policies) => {
        const started = Date.now();
        build.add(policies);
        compileMs += Date.now() - started;
      },
      apply: (snapshot, reason) => this.applySnapshot(snapshot, reason, build, compileMs),
    };
  }

  private async applySnapshot(snapshot: PolicySnapshot, reason: ResyncReason, build: SnapshotBuild, compiledMs: number): Promise<boolean> {
    const started = Date.now();
    const built = await build.finish(snapshot, () => this.stream.isStopped);
    if (built === undefined || this.stream.isStopped) return false;
    const { parts } = built;
    this.activeSet.swap(snapshot.revision, parts, 'snapshot');
    this.logger.info(
      {
        revision: snapshot.revision,
        policies: parts.set.size,
        timers: parts.timers.size,
        components: parts.components.size,
        compiled: built.compiled,
        reused: built.reused,
        // Compiling only, as before (the parts compiled while the snapshot was on its way, then the rest).
        ms: compiledMs + Date.now() - started,
        reason,
      },
      'policy snapshot active',
    );
    return true;
  }
}
