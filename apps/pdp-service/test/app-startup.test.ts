import request from 'supertest';
import { TokenVerifier } from '@custos/service-kit';
import { waitFor } from '@custos/test-kit';
import { createApp } from '../src/app';
import { createPdpMetrics } from '../src/metrics';
import { FakePap } from './support/fake-pap';
import { memoryLogger } from './support/logger';
import { allowAll } from './support/policies';
import { SHOW, MASK, event, exportEvent, expectProblem, startStack, type Stack } from './support/nats-stack';
import { useAuthority } from './support/use-pdp';

/** A pdp replica before its first snapshot, and one that fails unexpectedly: what it answers, and when it recovers. */
describe('pdp-service over real NATS: before the first snapshot, and on a bug', () => {
  const auth = useAuthority();

  describe('a replica without a snapshot yet', () => {
    let waiting: Stack;

    beforeAll(async () => {
      waiting = await startStack(auth.authority, { withPap: false, defaultDecision: 'inhibit' });
    });

    afterAll(async () => {
      await waiting.stop();
    });

    it('is not ready and answers 503 until pap answers, then decides', async () => {
      const ready = await request(waiting.server).get('/health/ready');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ ready: false, revision: null });
      const status = await request(waiting.server).get('/status');
      expect(status.body).toMatchObject({ ready: false, revision: null, policies: 0, lastSyncAt: null, natsConnected: true });
      const response = await request(waiting.server).post('/event').set('Authorization', `Bearer ${auth.token}`).send(event());
      expectProblem(response, 503, 'service_unavailable');
      expect(response.headers['retry-after']).toBe('1');
      const explain = await request(waiting.server).post('/event/explain').set('Authorization', `Bearer ${auth.token}`).send(event());
      expectProblem(explain, 503, 'service_unavailable');
      // Bad input is still reported as such.
      const bad = await request(waiting.server).post('/event').set('Authorization', `Bearer ${auth.token}`).send({});
      expectProblem(bad, 400, 'invalid_event');

      // pap comes up on this prefix: the retrying follower gets its snapshot.
      const pap = await FakePap.start(waiting.prefix);
      try {
        pap.deploy(MASK, allowAll(MASK, SHOW), { announce: false });
        await waitFor(async () => (await request(waiting.server).get('/health/ready')).status === 200, { timeoutMs: 10_000, what: 'readiness' });
        expect((await request(waiting.server).get('/health/ready')).body).toMatchObject({ ready: true, revision: 1 });
        const decided = await request(waiting.server).post('/event').set('Authorization', `Bearer ${auth.token}`).send(event());
        expect(decided.status).toBe(200);
        expect(decided.body.eventAllowed).toBe(true);
        // DEFAULT_DECISION=inhibit applies where no mechanism decides.
        const other = await request(waiting.server).post('/event').set('Authorization', `Bearer ${auth.token}`).send(exportEvent());
        expect(other.body.eventAllowed).toBe(false);
      } finally {
        await pap.stop();
      }
    });
  });

  describe('an unexpected failure', () => {
    it('is a 500 problem without details, logged', async () => {
      const log = memoryLogger('info');
      const app = createApp({
        logger: log.logger,
        metrics: createPdpMetrics(false),
        verifier: new TokenVerifier({ jwksUrl: auth.authority.jwksUrl }),
        policies: {
          active: { revision: 1, set: null } as never,
          waitForRevision: async () => true,
          status: () => ({ ready: true, revision: 1, policies: 0, timers: 0, components: 0, lastSyncAt: null, lastChangeAt: null, lastAppliedAt: null, lagMs: null, pendingChanges: 0 }),
        },
        natsConnected: () => true,
        replicaId: 'broken',
        defaultDecision: 'allow',
        timeZone: 'UTC',
      });
      const response = await request(app).post('/event').set('Authorization', `Bearer ${auth.token}`).send(event());
      expectProblem(response, 500, 'internal_error');
      expect(response.body.detail).toBe('an internal error occurred; it has been logged');
      expect(response.body).not.toHaveProperty('errors');
      const line = await waitFor(() => log.lines.find((l) => l.msg === 'unhandled error'), { what: 'the error log line' });
      expect(line.level).toBe('error');
      expect(line.requestId).toBe(response.headers['x-request-id']);
    });
  });
});
