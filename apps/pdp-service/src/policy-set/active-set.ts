import type { CompiledPolicy, LoadOutcome, PolicySet, TimerDocument } from '@custos/policy-engine';
import type { DeployedPolicy, PolicyChange, PolicySnapshot } from '@custos/contracts';
import type { Logger } from '@custos/service-kit';
import type { ComponentRegistry } from '../components/registry';
import { buildHistoryIndex, EMPTY_HISTORY_INDEX, type HistoryIndex } from '../history/plan';
import type { Deployments } from '../history/deployments';
import type { FollowerMetrics } from '../metrics';
import { SetBuilder } from './set-builder';
import { NO_SETTINGS, type SettingsBySolution } from './solution-settings';

/** Why a snapshot was taken. */
export type ResyncReason = 'start' | 'gap' | 'message' | 'reconnect' | 'periodic' | 'overflow' | 'retry';

/** A change the follower hands on: the next revision, never a `resync`. */
export type NextChange = Exclude<PolicyChange, { type: 'resync' }>;

/** One snapshot on its way in: documents as they arrive, then the whole (what was not `add`ed, its revision, components). */
export interface SnapshotIntake {
  add(policies: DeployedPolicy[]): void;
  /** Builds and activates a snapshot newer than the active set; false when it could not. */
  apply(snapshot: PolicySnapshot, reason: ResyncReason): Promise<boolean>;
}

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
  /** The revision at which each policy's current deployment began (pap's `deployedAt`), for those shipped with one. */
  readonly deployments: Deployments;
  /** Each solution's settings (its default decisions); a solution without any decides with the pdp's own. */
  readonly settings: SettingsBySolution;
}

/** What a new active set is made of (the set builder's product): its parts and the XML fingerprint of every document by id. */
export interface SetParts {
  readonly set: PolicySet;
  readonly timers: ReadonlyMap<string, TimerDocument>;
  readonly components: ComponentRegistry;
  /** The fingerprint of each deployed document's XML (`fingerprint`), to reuse compiled ones whose text did not change. */
  readonly sources: ReadonlyMap<string, string>;
  /** `deployedAt` of each deployed policy shipped with one. */
  readonly deployments: Deployments;
  /** The solutions' settings; absent: none. */
  readonly settings?: SettingsBySolution;
}

/** Where the active set stands, for /status. */
export interface ActiveSetStatus {
  ready: boolean;
  revision: number | null;
  policies: number;
  timers: number;
  components: number;
  /** When the active set was last replaced. */
  lastAppliedAt: string | null;
  /** Arrival to application of the last applied change message, in ms. */
  lagMs: number | null;
}

/** How the last attempt to build a set failed: which document, from where, and why. */
export interface SetFailure {
  documentId: string;
  source: 'change' | 'snapshot';
  problems: string[];
  revision?: number;
}

interface Waiter {
  revision: number;
  resolve: (reached: boolean) => void;
  timer: NodeJS.Timeout;
}

export interface ActiveSetOptions {
  logger: Logger;
  metrics?: FollowerMetrics;
  /** Called after every swap with the new active set (the timer scheduler follows it). */
  onActivate?: (active: ActivePolicySet) => void;
  /** The policy compiler; the policy engine's loadPolicy unless a test swaps it. */
  compile?: (xml: string) => LoadOutcome;
}

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

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

/**
 * The set decisions read, and everything about it: how the next one is made from a change or a snapshot (built
 * beside it by the SetBuilder), the swap (one assignment), the callers waiting for a revision, its status, and
 * failures to replace it (logged with the active revision and counted; the last good set stays). Failures are not
 * part of /status, which needs no token: their problems may quote policy text.
 */
export class ActiveSet {
  private readonly builder: SetBuilder;
  private current: ActivePolicySet | undefined;
  private currentSources: ReadonlyMap<string, string> = new Map();
  private waiters: Waiter[] = [];
  private closed = false;
  private lastAppliedAt: number | undefined;
  private lagMs: number | undefined;

  constructor(private readonly options: ActiveSetOptions) {
    options.metrics?.policyRevision.set(-1);
    this.builder = new SetBuilder({ compile: options.compile, onFailure: (failure) => this.reject(failure) });
  }

  /** The set to decide with, or undefined before the first snapshot. */
  get active(): ActivePolicySet | undefined {
    return this.current;
  }

  get revision(): number | undefined {
    return this.current?.revision;
  }

  /** XML fingerprints by id of the active set's documents. */
  get sources(): ReadonlyMap<string, string> {
    return this.currentSources;
  }

  /** Applies the change right after the active revision; false when it could not (the set stays). */
  applyChange(change: NextChange, receivedAt: number): boolean {
    const active = this.current;
    if (active === undefined) return false;
    const parts = this.builder.applyChange({ ...active, sources: this.currentSources }, change);
    if (parts === undefined) return false;
    this.swap(change.revision, parts, change.type, receivedAt);
    return true;
  }

  /**
   * Starts taking a snapshot in, begun against the set active now: its documents are compiled as they arrive (so their
   * parsed form dies young and compiling overlaps the fetch); the set is swapped in only by `apply`, once it is whole.
   */
  receiveSnapshot(): SnapshotIntake {
    const active = this.current;
    const build = this.builder.startSnapshot(active && { ...active, sources: this.currentSources });
    let compileMs = 0;
    return {
      add: (policies) => {
        const started = Date.now();
        build.add(policies);
        compileMs += Date.now() - started;
      },
      apply: async (snapshot, reason) => {
        const started = Date.now();
        const built = await build.finish(snapshot, () => this.closed);
        if (built === undefined || this.closed) return false;
        const { parts } = built;
        this.swap(snapshot.revision, parts, 'snapshot');
        this.options.logger.info(
          {
            revision: snapshot.revision,
            policies: parts.set.size,
            timers: parts.timers.size,
            components: parts.components.size,
            compiled: built.compiled,
            reused: built.reused,
            // Compiling only, as before (the parts compiled while the snapshot was on its way, then the rest).
            ms: compileMs + Date.now() - started,
            reason,
          },
          'policy snapshot active',
        );
        return true;
      },
    };
  }

  /** The one place the active set changes: a single assignment, then the waiters. */
  private swap(revision: number, parts: SetParts, source: string, receivedAt?: number): ActivePolicySet {
    const previous = this.current;
    // The history index depends on the policies only: rebuilt when they changed.
    const history = previous !== undefined && previous.set === parts.set ? previous.history : indexOf(parts.set, parts.sources);
    const next: ActivePolicySet = {
      revision,
      set: parts.set,
      timers: parts.timers,
      components: parts.components,
      history,
      deployments: parts.deployments,
      settings: parts.settings ?? NO_SETTINGS,
    };
    this.current = next;
    this.currentSources = parts.sources;
    const now = Date.now();
    this.lastAppliedAt = now;
    if (receivedAt !== undefined) this.lagMs = now - receivedAt;
    this.options.metrics?.policyRevision.set(revision);
    this.options.logger.debug({ revision, policies: parts.set.size, timers: parts.timers.size, source }, 'policy set swapped');
    this.options.onActivate?.(next);
    this.release(revision);
    return next;
  }

  /** A document that did not compile: the last good set stays active. */
  private reject(failure: SetFailure): void {
    this.options.metrics?.compileFailures.inc({ source: failure.source });
    this.options.logger.error(
      {
        policyId: failure.documentId,
        source: failure.source,
        revision: failure.revision,
        problems: failure.problems.slice(0, 20),
        active: this.current?.revision ?? null,
      },
      'policy failed to compile; the last good set stays active',
    );
  }

  /** Resolves true as soon as `revision` (or a later one) is active, false after `timeoutMs`. */
  waitForRevision(revision: number, timeoutMs: number): Promise<boolean> {
    if (this.current && this.current.revision >= revision) return Promise.resolve(true);
    if (this.closed || timeoutMs <= 0) return Promise.resolve(false);
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

  status(): ActiveSetStatus {
    return {
      ready: this.current !== undefined,
      revision: this.current?.revision ?? null,
      policies: this.current?.set.size ?? 0,
      timers: this.current?.timers.size ?? 0,
      components: this.current?.components.size ?? 0,
      lastAppliedAt: iso(this.lastAppliedAt),
      lagMs: this.lagMs ?? null,
    };
  }

  /** Every waiter learns that its revision will not come. */
  close(): void {
    this.closed = true;
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve(false);
    }
    this.waiters = [];
  }

  private release(revision: number): void {
    if (this.waiters.length === 0) return;
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
