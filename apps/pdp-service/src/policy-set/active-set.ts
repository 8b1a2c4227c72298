import type { CompiledPolicy, PolicySet, TimerDocument } from '@custos/policy-engine';
import type { Logger } from '@custos/service-kit';
import type { ComponentRegistry } from '../components/registry';
import { buildHistoryIndex, EMPTY_HISTORY_INDEX, type HistoryIndex } from '../history/plan';
import type { Deployments } from '../history/deployments';
import type { FollowerMetrics } from '../metrics';
import { NO_SETTINGS, type SettingsBySolution } from './solution-settings';

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
 * The set decisions read, and everything about it: the swap (one assignment), the callers waiting for a revision,
 * its status, and failures to replace it (logged with the active revision and counted; the last good set stays).
 * Failures are not part of /status, which needs no token: their problems may quote policy text.
 */
export class ActiveSet {
  private current: ActivePolicySet | undefined;
  private currentSources: ReadonlyMap<string, string> = new Map();
  private waiters: Waiter[] = [];
  private closed = false;
  private lastAppliedAt: number | undefined;
  private lagMs: number | undefined;

  constructor(private readonly options: ActiveSetOptions) {
    options.metrics?.policyRevision.set(-1);
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

  /** The one place the active set changes: a single assignment, then the waiters. */
  swap(revision: number, parts: SetParts, source: string, receivedAt?: number): ActivePolicySet {
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
  reject(failure: SetFailure): void {
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
