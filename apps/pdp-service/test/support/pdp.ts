import type { Server } from 'node:http';
import path from 'node:path';
import type { Pool } from 'pg';
import type { Component } from '@custos/contracts';
import { TEST_NATS_URL, createTestDatabase, uniqueNatsPrefix, waitFor, type TestAuthority, type TestDatabase } from '@custos/test-kit';
import { composePdp } from '../../src/compose';
import { readPdpConfig, type PdpConfig } from '../../src/config';
import type { Decider } from '../../src/decision/decider';
import type { HistoryHasher } from '../../src/history/hashing';
import type { RetentionJob } from '../../src/history/retention';
import type { PgHistoryStore } from '../../src/history/store';
import { createPdpMetrics, type PdpMetrics } from '../../src/metrics';
import type { HttpPipResolver } from '../../src/pip/resolver';
import type { PolicySetFollower } from '../../src/policy-set/follower';
import type { PxpGateway } from '../../src/pxp/gateway';
import type { TimerScheduler } from '../../src/timers/scheduler';
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
  /** PDP_AUTHZEN_DEFAULT (the pdp's default, `deny`, when absent). */
  authzenDefault?: 'deny' | 'allow';
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
  /** Claims on stored executes (default 15 s) and how often they are polled (default 1 s). */
  pxpLeaseMs?: number;
  pxpPollMs?: number;
  timers?: boolean;
  timerCatchUp?: 'last' | 'skip';
  timerCheckMs?: number;
  replicaId?: string;
  poolSize?: number;
  historyTimeoutMs?: number;
  /** The history pool connects here instead of the test database (outage tests); the secret is then fixed. */
  historyUrl?: string;
}

/**
 * The pdp as main.ts composes it (composePdp), on a fresh database and a FakePap on real NATS, with a controllable
 * clock and short timeouts where tests need them.
 */
export interface PdpHarness {
  database: TestDatabase;
  pap: FakePap;
  config: PdpConfig;
  pool: Pool;
  server: Server;
  follower: PolicySetFollower;
  decider: Decider;
  store: PgHistoryStore;
  pip: HttpPipResolver;
  pxp: PxpGateway;
  /** The PIP and PXP call targets; `close()` forgets them (fresh circuit breakers). */
  targets: { close(): void };
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

/** The configuration of a replica under test: production parsing, then the test's short timeouts. */
function testConfig(options: PdpOptions, database: TestDatabase, prefix: string): PdpConfig {
  const read = readPdpConfig({
    DATABASE_URL: database.url,
    NATS_URL: TEST_NATS_URL,
    NATS_PREFIX: prefix,
    AUTH_URL: options.authority.url,
    LOG_LEVEL: 'info',
    PDP_REPLICA_ID: options.replicaId ?? 'pdp-test',
    POLICY_TIMEZONE: options.timeZone ?? 'UTC',
    DEFAULT_DECISION: options.defaultDecision ?? 'allow',
    PDP_AUTHZEN_DEFAULT: options.authzenDefault,
    // Decision records have tests of their own (the buffer here, the stream in tests/system): every other replica of
    // these tests would make a stream on the shared NATS, each reserving its size bound.
    PDP_DECISION_RECORDS: 'off',
    // The stubs listen on loopback (jest.config.js allows it for every pdp of these tests).
    PDP_CALL_ALLOW: process.env.PDP_CALL_ALLOW,
  });
  const breaker = { breakerFailures: options.breakerFailures ?? 5, breakerOpenMs: options.breakerOpenMs ?? 5000 };
  const historyTimeoutMs = options.historyTimeoutMs ?? 2000;
  return {
    ...read,
    // Snapshots only when the tests cause them.
    resyncIntervalMs: 0,
    timers: options.timers === true,
    history: {
      ...read.history,
      poolSize: options.poolSize ?? 10,
      timeoutMs: historyTimeoutMs,
      retentionIntervalMs: 3_600_000,
      // The outage tests cannot store a generated secret: they use a fixed one.
      secret: options.historyUrl === undefined ? undefined : 'outage-test-secret-0123456789',
    },
    pip: { ...read.pip, timeoutMs: options.pipTimeoutMs ?? 500, maxConcurrency: options.pipMaxConcurrency ?? 32, cacheEntries: 1000, ...breaker },
    pxp: {
      ...read.pxp,
      timeoutMs: options.pxpTimeoutMs ?? 500,
      syncTimeoutMs: options.pipTimeoutMs ?? 500,
      attempts: options.pxpAttempts ?? 4,
      backoffMs: options.pxpBackoffMs ?? 20,
      leaseMs: options.pxpLeaseMs ?? read.pxp.leaseMs,
      pollMs: options.pxpPollMs ?? read.pxp.pollMs,
      ...breaker,
    },
    timerCatchUp: options.timerCatchUp ?? read.timerCatchUp,
    timerCheckMs: options.timerCheckMs ?? read.timerCheckMs,
  };
}

export async function startPdp(options: PdpOptions): Promise<PdpHarness> {
  const log = memoryLogger('info');
  const database = options.database ?? (await createTestDatabase('custos_pdp'));
  const pap = options.pap ?? (await FakePap.start(uniqueNatsPrefix()));
  const metrics = createPdpMetrics(false);
  const { clock } = options;
  const pdp = await composePdp(testConfig(options, database, pap.prefix), {
    logger: log.logger,
    metrics,
    ...(clock ? { clock } : {}),
    ...(options.historyUrl === undefined ? {} : { historyDatabaseUrl: options.historyUrl }),
    snapshotBackoff: { initialMs: 20, maxMs: 100 },
    chunkTimeoutMs: 2000,
    minRevisionWaitMs: 2000,
    startRetention: false,
    pxpDrainMs: 1000,
  });
  const server = await pdp.listen(0, '127.0.0.1');
  const { follower } = pdp;
  await waitFor(() => follower.ready, { what: 'the first snapshot' });

  const applied = async (revision: number) => {
    await waitFor(() => (follower.active?.revision ?? -1) >= revision, { what: `revision ${revision}` });
    return revision;
  };
  return {
    database,
    pap,
    config: pdp.config,
    pool: pdp.pool,
    server,
    follower,
    decider: pdp.decider,
    store: pdp.store,
    pip: pdp.pip,
    pxp: pdp.pxp,
    targets: {
      close: () => {
        pdp.pipTargets.close();
        pdp.pxpTargets.close();
      },
    },
    scheduler: pdp.scheduler,
    retention: pdp.retention,
    metrics,
    log,
    hasher: pdp.hasher,
    deploy: (id, xml) => applied(pap.deploy(id, xml)),
    revoke: (id) => applied(pap.revoke(id)),
    register: (component) => applied(pap.register(component)),
    stop: async ({ keepShared = false } = {}) => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      for (const close of pdp.closers) await close();
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
