import { loadPolicy, type LoadOutcome } from '@custos/policy-engine';
import { waitFor } from '@custos/test-kit';
import { createPdpMetrics, type PdpMetrics } from '../../src/metrics';
import { PolicySetFollower, type ActivePolicySet } from '../../src/policy-set/follower';
import { FakeTransport } from './fake-transport';
import { memoryLogger } from './logger';
import { allowAll, inhibitAll } from './policies';

export const A = 'urn:action:acme:show';
export const P1 = 'urn:policy:acme:p1';
export const P2 = 'urn:policy:acme:p2';
export const P3 = 'urn:policy:acme:p3';
export const p1 = { id: P1, xml: inhibitAll(P1, A) };
export const p2 = { id: P2, xml: allowAll(P2, 'urn:action:acme:other') };
export const p3 = { id: P3, xml: inhibitAll(P3, 'urn:action:acme:third') };

/** The sum of a metric's values whose labels include `labels`. */
export async function metricValue(metrics: PdpMetrics, name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
  const values = (metric?.values ?? []) as Array<{ value: number; labels: Record<string, string | number> }>;
  return values
    .filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
    .reduce((sum, v) => sum + v.value, 0);
}

interface FollowerBench {
  /** Fresh for each test. */
  transport: FakeTransport;
  metrics: PdpMetrics;
  log: ReturnType<typeof memoryLogger>;
  /** The xml of every document compiled, in order (unless `build` was given its own `compile`). */
  compiled: string[];
  /** The follower `build` made last. */
  follower: PolicySetFollower;
  /** A follower of `transport` with quick backoff and no periodic resync unless asked. */
  build(options?: { resyncIntervalMs?: number; compile?: (xml: string) => LoadOutcome }): PolicySetFollower;
  /** Waits until `revision` is active and the follower idle; the active set. */
  ready(revision: number): Promise<ActivePolicySet>;
  /** Starts a follower of a pap whose state is `state` and waits until that revision is active. */
  startAt(state: { revision: number; policies: Array<{ id: string; xml: string }> }): Promise<ActivePolicySet>;
}

/** The per-test transport, metrics, log and follower of the follower tests; the follower is stopped after each test. */
export function useFollowerBench(): FollowerBench {
  const bench = {
    build(options: { resyncIntervalMs?: number; compile?: (xml: string) => LoadOutcome } = {}) {
      bench.follower = new PolicySetFollower({
        transport: bench.transport,
        logger: bench.log.logger,
        metrics: bench.metrics,
        resyncIntervalMs: options.resyncIntervalMs ?? 0,
        backoff: { initialMs: 5, maxMs: 20 },
        compile:
          options.compile ??
          ((xml) => {
            bench.compiled.push(xml);
            return loadPolicy(xml);
          }),
      });
      return bench.follower;
    },
    async ready(revision: number) {
      await waitFor(() => bench.follower.active?.revision === revision, { timeoutMs: 5000, what: `revision ${revision}` });
      await bench.follower.idle();
      const active = bench.follower.active;
      if (active === undefined) throw new Error(`revision ${revision} was active and is gone`);
      return active;
    },
    async startAt(state: { revision: number; policies: Array<{ id: string; xml: string }> }) {
      bench.transport.state = state;
      bench.build();
      await bench.follower.start();
      return bench.ready(state.revision);
    },
  } as FollowerBench;
  beforeEach(() => {
    bench.transport = new FakeTransport();
    bench.metrics = createPdpMetrics(false);
    bench.compiled = [];
    bench.log = memoryLogger();
  });
  afterEach(async () => {
    await (bench.follower as PolicySetFollower | undefined)?.stop();
    (bench as Partial<FollowerBench>).follower = undefined;
  });
  return bench;
}
