import { type Server } from 'node:http';
import type { Pool } from 'pg';
import type { Component } from '@custos/contracts';
import { type TestAuthority, type TestDatabase } from '@custos/test-kit';
import { CallTargets } from '../../src/calls/http-json';
import { Decider } from '../../src/decision/decider';
import { HistoryHasher } from '../../src/history/hashing';
import { RetentionJob } from '../../src/history/retention';
import { PgHistoryStore } from '../../src/history/store';
import { type PdpMetrics } from '../../src/metrics';
import { HttpPipResolver } from '../../src/pip/resolver';
import { PolicySetFollower } from '../../src/policy-set/follower';
import { PxpGateway } from '../../src/pxp/gateway';
import { TimerScheduler } from '../../src/timers/scheduler';
import { FakePap } from './fake-pap';
import { memoryLogger } from './logger';
export declare const MIGRATIONS: string;
/** A clock the test moves by hand. */
export declare class TestClock {
    current: number;
    constructor(current: number);
    now(): number;
    set(iso: string): void;
    advance(ms: number): void;
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
    stop(options?: {
        keepShared?: boolean;
    }): Promise<void>;
}
export declare function startPdp(options: PdpOptions): Promise<PdpHarness>;
export declare const policy: (id: string, body: string) => string;
export declare const timerXml: (id: string, cron: string, events: string) => string;
/** A component as pap propagates it. */
export declare function component(type: 'PIP' | 'PXP', name: string, url: string, methods: string[]): Component;
/** A wire event of solution acme. */
export declare const wireEvent: (action: string, parameters?: Record<string, unknown>, timestamp?: number) => {
    actionId: {
        scope: string;
        action: string;
    };
    timestamp: number;
    parameters: {
        name: string;
        value: {
            value: unknown;
            type: string;
            isComplex: boolean;
        };
    }[];
};
