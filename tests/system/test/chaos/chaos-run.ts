import {
  ADMIN_ID,
  ADMIN_SECRET,
  clientToken,
  freePort,
  startOwnNatsCluster,
  startOwnNatsServer,
  startOwnPostgresFailover,
  uniqueNatsPrefix,
  type OwnNatsCluster,
  type OwnNatsServer,
  type OwnPostgresFailover,
} from '@custos/test-kit';
import { checkChanges, checkLimitAndExecutes, checkTimer } from './checks';
import { deploySet, LIMIT } from './deployed-set';
import { faultCounts, inject } from './faults';
import { startLoad } from './load';
import { checkMemory, sampleRss } from './memory';
import { startOwnPostgres, type OwnPostgres } from './postgres-cluster';
import { papClient, servicePool, until } from './services';
import { StubPxp } from './stub-pxp';

/**
 * The chaos run of issue 14: 3 pdps, 2 paps and auth on a private PostgreSQL cluster and a private NATS, under a
 * steady load of decisions (pure, history-limited, with PXP executes to a stub PXP this process runs) and a
 * deploy/revoke every few hundred ms, while pdps and paps are killed with SIGKILL and NATS and PostgreSQL are
 * restarted (PostgreSQL crashed: `pg_ctl -m immediate`), one fault at a time, repeatedly. Afterwards every promise
 * of the contract is checked against what was answered; `violations` lists every broken one. The parts: services.ts
 * (the processes), deployed-set.ts (what is decided), load.ts, faults.ts, checks.ts and memory.ts.
 */
export interface ChaosOptions {
  /** How long faults are injected under load. */
  seconds: number;
  /** Progress lines. */
  log?: (line: string) => void;
  /**
   * The clustered form (issue 23): a three-node NATS cluster in place of the one server and pg_auto_failover (a
   * primary and its synchronous standby) in place of the one PostgreSQL; the faults kill the change stream's NATS
   * leader and fail the PostgreSQL primary over, in place of restarting either.
   */
  cluster?: boolean;
}

export interface ChaosReport {
  figures: Record<string, number | string>;
  errors: Record<string, number>;
  violations: string[];
}

/** Longer than any single outage the run causes, so catch-up `last` leaves no tick missed. */
const TIMER_PERIOD_MS = 5000;
/** The clustered form's longest outage is a PostgreSQL failover (about 10 s on a busy machine): a longer period. */
const CLUSTER_TIMER_PERIOD_MS = 15_000;

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => undefined);
  const timerPeriodMs = options.cluster ? CLUSTER_TIMER_PERIOD_MS : TIMER_PERIOD_MS;
  const violations: string[] = [];
  const errors: Record<string, number> = {};
  const countError = (what: string, kind: string) => {
    const key = `${what} ${kind}`;
    errors[key] = (errors[key] ?? 0) + 1;
  };
  const cleanups: Array<() => Promise<unknown>> = [];
  let pg: OwnPostgres | undefined;
  let nats: OwnNatsServer | undefined;
  let natsCluster: OwnNatsCluster | undefined;
  let pgFailover: OwnPostgresFailover | undefined;
  const stub = await new StubPxp().start();
  cleanups.push(() => stub.stop());
  try {
    if (options.cluster) {
      [natsCluster, pgFailover] = await Promise.all([startOwnNatsCluster({ size: 3 }), startOwnPostgresFailover()]);
    } else {
      pg = await startOwnPostgres();
      nats = await startOwnNatsServer();
    }
    const databaseUrl = pgFailover?.url('custos_chaos') ?? pg?.url('custos_chaos') ?? '';
    const natsUrl = natsCluster?.url ?? nats?.url ?? '';
    const authPort = await freePort();
    const prefix = uniqueNatsPrefix();
    const env: Record<string, string> = {
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
      NATS_PREFIX: prefix,
      AUTH_URL: `http://127.0.0.1:${authPort}`,
      BOOTSTRAP_CLIENT_ID: ADMIN_ID,
      BOOTSTRAP_CLIENT_SECRET: ADMIN_SECRET,
      LOG_LEVEL: 'warn',
      PDP_RESYNC_INTERVAL_MS: '5000',
      PDP_PXP_LEASE_MS: '2000',
      PDP_PXP_POLL_MS: '250',
      PDP_PXP_ATTEMPTS: '8',
      PDP_PXP_BACKOFF_MS: '100',
      PDP_TIMER_CHECK_MS: '500',
      PDP_TIMER_LEASE_MS: '3000',
      PDP_TIMER_CATCH_UP: 'last',
    };
    const pool = servicePool(env, violations, log);
    cleanups.push(() => pool.killAll());

    const auth = await pool.launch('auth-service', authPort);
    pool.slots.push(auth);
    const paps = [await pool.launch('pap-service'), await pool.launch('pap-service')];
    pool.slots.push(...paps);
    const pdps = await Promise.all([0, 1, 2].map(() => pool.launch('pdp-service')));
    pool.slots.push(...pdps);
    log(`started: postgres ${databaseUrl}, nats ${natsUrl}, auth, 2 paps, 3 pdps`);
    const token = await clientToken(auth.service.url, ADMIN_ID, ADMIN_SECRET);
    const { papCall, setup } = papClient(paps, token);
    await deploySet(setup, pdps, stub.url, timerPeriodMs);

    // --- load and faults --------------------------------------------------------------------------------------
    const stopSampling = sampleRss(pdps);
    cleanups.push(async () => stopSampling());
    const faults = faultCounts(options.cluster === true);
    const targets = { pool, pdps, paps, auth, prefix, nats, pg, natsCluster, pgFailover, log };
    const startedAt = Date.now();
    const load = startLoad({ pdps, token, papCall, violations, countError });
    // A run that fails midway stops its clients too: left running they kept jest alive against dead services.
    cleanups.push(() => load.stop());
    const kinds = Object.keys(faults);
    let rounds = 0;
    while (Date.now() - startedAt < options.seconds * 1000) {
      // Every kind of fault once per round, in a random order. The first round always ends: on a loaded machine a
      // restart can take half a minute, and the short run must still have injected every kind.
      const round = [...kinds].sort(() => Math.random() - 0.5);
      for (const fault of round) {
        if (rounds > 0 && Date.now() - startedAt >= options.seconds * 1000) break;
        await inject(fault, targets, faults);
        // Load runs undisturbed for a moment between faults.
        await until(1000 + Math.random() * 1500);
      }
      rounds++;
    }
    await load.stop();
    const { record } = load;
    const chaosEndedAt = Date.now();
    log(`faults over after ${Math.round((chaosEndedAt - startedAt) / 1000)} s; checking`);

    // --- checks -----------------------------------------------------------------------------------------------
    const lastRevision = await checkChanges({ pdps, natsUrl, prefix, record, log }, violations);
    await checkLimitAndExecutes(record, stub, violations);
    const primaryPort = pgFailover ? (await pgFailover.primary()).port : undefined;
    const connectionString = primaryPort === undefined ? databaseUrl : `postgres://postgres@127.0.0.1:${primaryPort}/custos_chaos`;
    const ticksFired = await checkTimer({ connectionString, chaosEndedAt, timerPeriodMs, stub }, violations);
    const rssFigures = checkMemory(pdps, violations);

    pool.stopping();
    const answered = Object.values(record.decisions).reduce((sum, n) => sum + n, 0);
    return {
      figures: {
        seconds: Math.round((chaosEndedAt - startedAt) / 1000),
        ...Object.fromEntries(Object.entries(faults).map(([fault, n]) => [fault, n])),
        'decisions answered': answered,
        ...Object.fromEntries(Object.entries(record.decisions).map(([kind, n]) => [`decisions ${kind}`, n])),
        'deploy/revoke acknowledged': record.acked.length,
        'last revision': lastRevision,
        'limited allowed': `${record.limitAllowed} of at most ${LIMIT}`,
        'executes required by answered decisions': record.answeredSeqs.length,
        'executes delivered (PXP calls)': stub.deliveries,
        'distinct execute ids seen': stub.keys.size,
        'executes delivered from memory (not stored: PostgreSQL down)': stub.unkeyed,
        'timer ticks fired': ticksFired,
        'longest gap without a decision answered (ms)': record.gaps.pdp.longest,
        'longest gap without a deploy/revoke acknowledged (ms)': record.gaps.pap.longest,
        ...rssFigures,
        lost: violations.filter((v) => /never|missing/.test(v)).length,
        wrong: violations.filter((v) => !/never|missing/.test(v)).length,
      },
      errors,
      violations,
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await nats?.destroy().catch(() => undefined);
    await pg?.destroy().catch(() => undefined);
    await natsCluster?.destroy().catch(() => undefined);
    await pgFailover?.destroy().catch(() => undefined);
  }
}
