import { createServer, type Server } from 'node:http';
import request from 'supertest';
import { connect, type NatsConnection } from 'nats';
import { TokenVerifier } from '@custos/service-kit';
import { TEST_NATS_URL, uniqueNatsPrefix, waitFor, type TestAuthority } from '@custos/test-kit';
import { createApp } from '../../src/app';
import { createPdpMetrics, type PdpMetrics } from '../../src/metrics';
import { PolicySetFollower } from '../../src/policy-set/follower';
import { NatsPolicyTransport } from '../../src/policy-set/transport';
import { FakePap } from './fake-pap';
import { memoryLogger } from './logger';
import { maskingPolicy } from './policies';

export const SHOW = 'urn:action:acme:show';
export const EXPORT = 'urn:action:acme:export';
export const MASK = 'urn:policy:acme:mask';
export const BLOCK = 'urn:policy:acme:block-export';
export const WAIT_MS = 300;

export const event = (overrides: Record<string, unknown> = {}) => ({
  actionId: { scope: 'acme', action: 'show' },
  timestamp: 1763798400000,
  parameters: [
    { name: 'user', value: { value: '{"id":"u1","name":{"firstName":"Ann"}}', type: 'com.acme.User', isComplex: true } },
    { name: 'amount', value: { value: 5, type: 'java.lang.Integer', isComplex: false } },
  ],
  ...overrides,
});

export const exportEvent = () => event({ actionId: { urn: EXPORT }, parameters: [] });

export interface Stack {
  prefix: string;
  server: Server;
  pap: FakePap;
  follower: PolicySetFollower;
  metrics: PdpMetrics;
  log: ReturnType<typeof memoryLogger>;
  nc: NatsConnection;
  waits: number[];
  stop(): Promise<void>;
}

export async function startStack(authority: TestAuthority, { withPap = true, defaultDecision = 'allow' as 'allow' | 'inhibit' } = {}): Promise<Stack> {
  const prefix = uniqueNatsPrefix();
  const pap = withPap ? await FakePap.start(prefix) : (undefined as unknown as FakePap);
  const log = memoryLogger('info');
  const metrics = createPdpMetrics(false);
  const nc = await connect({ servers: TEST_NATS_URL, name: 'pdp under test' });
  const transport = new NatsPolicyTransport(nc, { prefix, requester: 'pdp-test', logger: log.logger, chunkTimeoutMs: 2000 });
  const follower = new PolicySetFollower({
    transport,
    logger: log.logger,
    metrics,
    resyncIntervalMs: 0,
    backoff: { initialMs: 20, maxMs: 100 },
  });
  const waits: number[] = [];
  const app = createApp({
    logger: log.logger,
    metrics,
    verifier: new TokenVerifier({ jwksUrl: authority.jwksUrl }),
    policies: {
      get active() {
        return follower.active;
      },
      waitForRevision: (revision, timeoutMs) => {
        waits.push(revision);
        return follower.waitForRevision(revision, timeoutMs);
      },
      status: () => follower.status(),
    },
    natsConnected: () => transport.connected,
    replicaId: 'pdp-test-1',
    defaultDecision,
    timeZone: 'Europe/Berlin',
    minRevisionWaitMs: WAIT_MS,
  });
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  await follower.start();
  return {
    prefix,
    server,
    pap,
    follower,
    metrics,
    log,
    nc,
    waits,
    stop: async () => {
      await follower.stop();
      await nc.drain();
      await pap?.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export const expectProblem = (response: request.Response, status: number, code: string) => {
  expect({ status: response.status, code: response.body.code }).toEqual({ status, code });
  expect(response.headers['content-type']).toBe('application/problem+json');
  expect(response.body).toMatchObject({ type: `urn:custos:problem:${code}`, status });
  expect(typeof response.body.detail).toBe('string');
  expect(JSON.stringify(response.body)).not.toMatch(/\n\s+at /);
};


/** A replica following a FakePap that had MASK deployed before the replica started, once it holds that snapshot. */
export async function startFollowingStack(authority: TestAuthority): Promise<Stack> {
  const stack = await startStack(authority);
  stack.pap.deploy(MASK, maskingPolicy(MASK, SHOW), { announce: false });
  await waitFor(() => stack.follower.ready, { what: 'the first snapshot' });
  return stack;
}

/**
 * Registers a `beforeAll` starting a following replica (`startFollowingStack`) and an `afterAll` stopping it; `decide`
 * posts an event (by default `event()`) with `token()`. Read `stack()` inside hooks and tests.
 */
export function useFollowingStack(authority: () => TestAuthority, token: () => string) {
  let stack: Stack | undefined;
  beforeAll(async () => {
    stack = await startFollowingStack(authority());
  });
  afterAll(async () => {
    await stack?.stop();
  });
  const current = (): Stack => {
    if (stack === undefined) throw new Error('the stack is read before it started (use it in hooks and tests)');
    return stack;
  };
  return {
    stack: current,
    decide: (body: unknown = event(), path = '/event') => request(current().server).post(path).set('Authorization', `Bearer ${token()}`).send(body as object),
  };
}
