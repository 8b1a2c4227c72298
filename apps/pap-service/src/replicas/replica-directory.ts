import { REPLICA_STATUS_INTERVAL_MS, replicaStatusSubject, type ReplicaStatusReport } from '@custos/contracts';
import type { Logger } from '@custos/service-kit';
import { LinkSubscription } from '../propagation/link-subscription';
import type { NatsLink } from '../propagation/nats-link';

/** A replica as pap last heard of it. */
export interface KnownReplica {
  report: ReplicaStatusReport;
  /** When pap received the report (pap's clock: replicas' clocks may differ). */
  receivedAt: number;
}

export interface ReplicaDirectoryOptions {
  link: Pick<NatsLink, 'onConnected'>;
  prefix: string;
  logger: Logger;
  /** A replica silent this long is shown as stale (three report intervals by default). */
  staleAfterMs?: number;
  /** A stale replica stays listed, with when it was last heard of, this long after its last report (an hour). */
  forgetAfterMs?: number;
  /** Most replicas remembered; past it the longest silent is forgotten first (anything may publish a name). */
  maxReplicas?: number;
}

/**
 * How long a silent replica stays listed: a stopped or cut-off pdp is what an operator comes to the list to see, so it
 * stays as "last seen …" for an hour, long enough to be noticed; renamed replicas (a new pod name at each rollout) then
 * drop out by themselves. pap keeps the list in memory, so a restarted pap lists only the replicas that report again.
 */
const REPLICA_FORGET_AFTER_MS = 60 * 60 * 1000;

/** Bounds the memory a flood of reports under made-up names can take. */
const MAX_KNOWN_REPLICAS = 1000;

const text = (value: unknown): value is string => typeof value === 'string' && value.length > 0 && value.length <= 256;
const revision = (value: unknown): value is number | null => value === null || (Number.isSafeInteger(value) && (value as number) >= 0);

/** Reads a report, or undefined for a message that is not one (anything may publish on a subject). */
export function readReport(data: string): ReplicaStatusReport | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (!text(r.replica) || typeof r.ready !== 'boolean' || !revision(r.revision) || typeof r.natsConnected !== 'boolean') return undefined;
  return {
    replica: r.replica,
    ready: r.ready,
    revision: r.revision,
    lagMs: typeof r.lagMs === 'number' && Number.isFinite(r.lagMs) ? r.lagMs : null,
    pendingChanges: Number.isSafeInteger(r.pendingChanges) ? (r.pendingChanges as number) : 0,
    natsConnected: r.natsConnected,
    sentAt: text(r.sentAt) ? r.sentAt : new Date(0).toISOString(),
  };
}

/**
 * Every pdp replica that reports its status over NATS (pdp's ReplicaStatusPublisher), kept in memory: pap learns
 * them within one report interval of starting, so nothing is stored.
 */
export class ReplicaDirectory {
  private readonly replicas = new Map<string, KnownReplica>();
  private readonly subscription: LinkSubscription;
  private readonly staleAfterMs: number;
  private readonly forgetAfterMs: number;
  private readonly maxReplicas: number;

  constructor(private readonly options: ReplicaDirectoryOptions) {
    this.staleAfterMs = options.staleAfterMs ?? 3 * REPLICA_STATUS_INTERVAL_MS;
    this.forgetAfterMs = Math.max(options.forgetAfterMs ?? REPLICA_FORGET_AFTER_MS, this.staleAfterMs);
    this.maxReplicas = options.maxReplicas ?? MAX_KNOWN_REPLICAS;
    this.subscription = new LinkSubscription({
      link: options.link,
      subject: replicaStatusSubject(options.prefix),
      logger: options.logger,
      what: 'replica status',
      onMessage: (msg) => {
        const report = readReport(msg.string());
        if (report === undefined) {
          this.options.logger.debug({ subject: msg.subject }, 'malformed replica status ignored');
          return;
        }
        this.receive(report);
      },
    });
  }

  start(): this {
    this.subscription.start();
    return this;
  }

  stop(): void {
    this.subscription.stop();
  }

  /** Takes one report (what the subscription does with each message). */
  receive(report: ReplicaStatusReport, now = Date.now()): void {
    this.replicas.delete(report.replica);
    this.replicas.set(report.replica, { report, receivedAt: now });
    // The map is in order of the last report (delete, then set), so the first entry is the longest silent.
    for (const name of this.replicas.keys()) {
      if (this.replicas.size <= this.maxReplicas) break;
      this.replicas.delete(name);
    }
  }

  /** The replicas heard of within the forget time, by name, each with whether it has gone quiet. */
  list(now = Date.now()): Array<KnownReplica & { stale: boolean }> {
    for (const [name, known] of this.replicas) {
      if (now - known.receivedAt > this.forgetAfterMs) this.replicas.delete(name);
    }
    return [...this.replicas.values()]
      .sort((a, b) => (a.report.replica < b.report.replica ? -1 : a.report.replica > b.report.replica ? 1 : 0))
      .map((known) => ({ ...known, stale: now - known.receivedAt > this.staleAfterMs }));
  }
}
