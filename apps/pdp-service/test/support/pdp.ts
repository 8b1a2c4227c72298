import { createServer, type Server } from 'node:http';
import path from 'node:path';
import type { Pool } from 'pg';
import { connect, type NatsConnection } from 'nats';
import type { Component } from '@custos/contracts';
import { TokenVerifier, createPool, migrate } from '@custos/service-kit';
import { TEST_NATS_URL, createTestDatabase, uniqueNatsPrefix, waitFor, type TestAuthority, type TestDatabase } from '@custos/test-kit';
import { createApp } from '../../src/app';
import { CallTargets } from '../../src/calls/http-json';
import { Decider } from '../../src/decision/decider';
import { HistoryHasher } from '../../src/history/hashing';
import { RetentionJob } from '../../src/history/retention';
import { historySecret } from '../../src/history/secret';
import { PgHistoryStore } from '../../src/history/store';
import { createPdpMetrics, type PdpMetrics } from '../../src/metrics';
import { HttpPipResolver } from '../../src/pip/resolver';
import { PolicySetFollower } from '../../src/policy-set/follower';
import { NatsPolicyTransport } from '../../src/policy-set/transport';
import { PxpGateway } from '../../src/pxp/gateway';
import { TimerScheduler } from '../../src/timers/scheduler';
import { FakePap } from './fake-pap';
import { memoryLogger } from './logger';

export const MIGRATIONS = path.join(__dirname, '..', '..', 'migrations');

/** A clock the test moves by hand. */
export class TestClock {
  constructor(public current: number) {}
  now(): number {
    return this.current;
  }
  set(iso: string): void {
    this.current = Date.parse(iso);
  }
  advance(ms: number): void {
    this.current += ms;
  }
}

export interface PdpOptions {
  authority: TestAuthority;
  clock?: TestClock;
  timeZone?: string;
  defaultDecision?: 'allow' | 'inhibit';
  /** Share another harness's database and NATS prefix (a second replica). */
  database?: TestDatabase;
  pap?: FakePap;
  pipTimeoutMs?: number;
  pipMaxConcurrency?: number;
  breakerFailures?: number;
  breakerOpenMs?: number;
  pxpAttempts?: number;
  pxpBackoffMs?: number;
  pxpTimeoutMs?: number;
  timers?: boolean;
  replicaId?: string;
  poolSize?: number;
  historyTimeoutMs?: number;
  /** The history pool connects here instead of the test database (outage tests); the secret is then fixed. */
  historyUrl?: string;
}

/**
 * The pdp assembled in-process as main.ts does, on a fresh database (pdp migrations applied) and a FakePap on real
 * NATS, with a controllable clock and short timeouts where tests need them.
 */
export interface PdpHarness {
  database: TestDatabase;
  pap: FakePap;
  pool: Pool;
  server: Server;
  follower: PolicySetFollower;
  decider: Decider;
  store: PgHistoryStore;
  pip: HttpPipResolver;
  pxp: PxpGateway;
  /** The PIP/PXP call targets; `close()` forgets them (fresh circuit breakers). */
  targets: CallTargets;
  scheduler: TimerScheduler | undefined;
  retention: RetentionJob;
  metrics: PdpMetrics;
  log: ReturnType<typeof memoryLogger>;
  hasher: HistoryHasher;
  /** Deploys at the next revision and waits until this replica applied it. */
  deploy(id: string, xml: string): Promise<number>;
  revoke(id: string): Promise<number>;
  register(component: Component): Promise<number>;
  stop(options?: { keepShared?: boolean }): Promise<void>;
}

export async function startPdp(options: PdpOptions): Promise<PdpHarness> {
  const log = memoryLogger('info');
  const database = options.database ?? (await createTestDatabase('custos_pdp'));
  await migrate({ databaseUrl: database.url, schema: 'pdp', dir: MIGRATIONS, logger: log.logger });
  const historyTimeoutMs = options.historyTimeoutMs ?? 2000;
  const pool = createPool(options.historyUrl ?? database.url, log.logger, {
    max: options.poolSize ?? 10,
    connectionTimeoutMillis: historyTimeoutMs,
    statement_timeout: historyTimeoutMs,
    query_timeout: historyTimeoutMs + 500,
  });
  const hasher = new HistoryHasher(await historySecret(pool, options.historyUrl === undefined ? undefined : 'outage-test-secret-0123456789'));
  const metrics = createPdpMetrics(false);
  const store = new PgHistoryStore({ pool, hasher, logger: log.logger, metrics: { failures: (op) => metrics.historyFailures.inc({ op }) } });
  const targets = new CallTargets({
    timeoutMs: options.pipTimeoutMs ?? 500,
    maxConcurrency: options.pipMaxConcurrency ?? 32,
    breakerFailures: options.breakerFailures ?? 5,
    breakerOpenMs: options.breakerOpenMs ?? 5000,
  });
  const pip = new HttpPipResolver({ targets, logger: log.logger, cacheEntries: 1000, onOutcome: (outcome) => metrics.pipCalls.inc({ outcome }) });
  const pxp = new PxpGateway({
    targets,
    logger: log.logger,
    timeoutMs: options.pxpTimeoutMs ?? 500,
    syncTimeoutMs: options.pipTimeoutMs ?? 500,
    attempts: options.pxpAttempts ?? 4,
    backoffMs: options.pxpBackoffMs ?? 20,
    onOutcome: (kind, outcome) => metrics.pxpExecutions.inc({ kind, outcome }),
  });
  const timeZone = options.timeZone ?? 'UTC';
  const defaultDecision = options.defaultDecision ?? 'allow';
  const decider = new Decider({ defaultDecision, timeZone, logger: log.logger, history: store, pip, pxp, clock: options.clock });

  const pap = options.pap ?? (await FakePap.start(uniqueNatsPrefix()));
  const nc: NatsConnection = await connect({ servers: TEST_NATS_URL, name: 'pdp under test' });
  const transport = new NatsPolicyTransport(nc, { prefix: pap.prefix, requester: options.replicaId ?? 'pdp-test', logger: log.logger, chunkTimeoutMs: 2000 });
  let scheduler: TimerScheduler | undefined;
  const follower = new PolicySetFollower({
    transport,
    logger: log.logger,
    metrics,
    resyncIntervalMs: 0,
    backoff: { initialMs: 20, maxMs: 100 },
    onActivate: (active) => scheduler?.update(active),
  });
  if (options.timers === true) {
    scheduler = new TimerScheduler({
      pool,
      decider,
      logger: log.logger,
      timeZone,
      replicaId: options.replicaId ?? 'pdp-test',
      active: () => follower.active,
      onTick: (outcome) => metrics.timerTicks.inc({ outcome }),
    });
  }
  const retention = new RetentionJob({
    pool,
    logger: log.logger,
    intervalMs: 3_600_000,
    state: () => (follower.active ? { revision: follower.active.revision, history: follower.active.history } : undefined),
    now: options.clock ? () => options.clock!.now() : undefined,
  });
  const app = createApp({
    logger: log.logger,
    metrics,
    verifier: new TokenVerifier({ jwksUrl: options.authority.jwksUrl }),
    policies: follower,
    natsConnected: () => transport.connected,
    replicaId: options.replicaId ?? 'pdp-test',
    defaultDecision,
    timeZone,
    decider,
    minRevisionWaitMs: 2000,
  });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await follower.start();
  await waitFor(() => follower.ready, { what: 'the first snapshot' });

  const applied = async (revision: number) => {
    await waitFor(() => (follower.active?.revision ?? -1) >= revision, { what: `revision ${revision}` });
    return revision;
  };
  return {
    database,
    pap,
    pool,
    server,
    follower,
    decider,
    store,
    pip,
    pxp,
    targets,
    scheduler,
    retention,
    metrics,
    log,
    hasher,
    deploy: (id, xml) => applied(pap.deploy(id, xml)),
    revoke: (id) => applied(pap.revoke(id)),
    register: (component) => applied(pap.register(component)),
    stop: async ({ keepShared = false } = {}) => {
      await follower.stop();
      await scheduler?.stop();
      await retention.stop();
      await pxp.drain(1000);
      await nc.drain();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
      targets.close();
      if (!keepShared) {
        if (options.pap === undefined) await pap.stop();
        if (options.database === undefined) await database.drop();
      }
    },
  };
}

/** XML of a policy declaring every namespace the tests use. */
const NS = [
  'xmlns="http://www.mydata-control.de/4.0/mydataLanguage"',
  'xmlns:constant="http://www.mydata-control.de/4.0/constant"',
  'xmlns:event="http://www.mydata-control.de/4.0/event"',
  'xmlns:parameter="http://www.mydata-control.de/4.0/parameter"',
  'xmlns:pip="http://www.mydata-control.de/4.0/pip"',
  'xmlns:valueChanged="http://www.mydata-control.de/4.0/valueChanged"',
].join(' ');

export const policy = (id: string, body: string): string => `<policy ${NS} id="${id}">\n${body}\n</policy>`;

export const timerXml = (id: string, cron: string, events: string): string =>
  `<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer" xmlns:parameter="http://www.mydata-control.de/4.0/parameter" ` +
  `xmlns:constant="http://www.mydata-control.de/4.0/constant" id="${id}" cron="${cron}">\n${events}\n</timer>`;

/** A component as pap propagates it. */
export function component(type: 'PIP' | 'PXP', name: string, url: string, methods: string[]): Component {
  return {
    id: { componentType: type, identifier: `urn:component:acme:${type.toLowerCase()}:${name}` },
    urls: ['rmi://ignored.example:1099/x', url],
    componentInterfaces: methods.map((methodName) => ({ type: 'InterfaceDescription', methodName, returnType: 'java.lang.Object', parameters: [] })),
  };
}

/** A wire event of solution acme. */
export const wireEvent = (action: string, parameters: Record<string, unknown> = {}, timestamp = Date.UTC(2026, 0, 15, 12)) => ({
  actionId: { scope: 'acme', action },
  timestamp,
  parameters: Object.entries(parameters).map(([name, value]) => ({
    name,
    value: { value, type: typeof value === 'object' ? 'java.lang.Object' : 'java.lang.String', isComplex: typeof value === 'object' && value !== null },
  })),
});
