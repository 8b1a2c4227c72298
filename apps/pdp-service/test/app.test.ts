import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { connect, type NatsConnection } from 'nats';
import { TokenVerifier } from '@custos/service-kit';
import { TEST_NATS_URL, TestAuthority, uniqueNatsPrefix, waitFor } from '@custos/test-kit';
import jwt from 'jsonwebtoken';
import { createApp } from '../src/app';
import { createPdpMetrics, type PdpMetrics } from '../src/metrics';
import { PolicySetFollower } from '../src/policy-set/follower';
import { NatsPolicyTransport } from '../src/policy-set/transport';
import { FakePap } from './support/fake-pap';
import { memoryLogger } from './support/logger';
import { allowAll, inhibitAll, maskingPolicy } from './support/policies';

const SHOW = 'urn:action:acme:show';
const EXPORT = 'urn:action:acme:export';
const MASK = 'urn:policy:acme:mask';
const BLOCK = 'urn:policy:acme:block-export';
const WAIT_MS = 300;

const event = (overrides: Record<string, unknown> = {}) => ({
  actionId: { scope: 'acme', action: 'show' },
  timestamp: 1763798400000,
  parameters: [
    { name: 'user', value: { value: '{"id":"u1","name":{"firstName":"Ann"}}', type: 'com.acme.User', isComplex: true } },
    { name: 'amount', value: { value: 5, type: 'java.lang.Integer', isComplex: false } },
  ],
  ...overrides,
});

const exportEvent = () => event({ actionId: { urn: EXPORT }, parameters: [] });

interface Stack {
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

async function startStack(authority: TestAuthority, { withPap = true, defaultDecision = 'allow' as 'allow' | 'inhibit' } = {}): Promise<Stack> {
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

const expectProblem = (response: request.Response, status: number, code: string) => {
  expect({ status: response.status, code: response.body.code }).toEqual({ status, code });
  expect(response.headers['content-type']).toBe('application/problem+json');
  expect(response.body).toMatchObject({ type: `urn:custos:problem:${code}`, status });
  expect(typeof response.body.detail).toBe('string');
  expect(JSON.stringify(response.body)).not.toMatch(/\n\s+at /);
};

describe('pdp-service over real NATS', () => {
  let authority: TestAuthority;
  let stack: Stack;
  let token: string;

  beforeAll(async () => {
    authority = await new TestAuthority().start();
    token = authority.mint({ scopes: ['event:decide'], solutions: ['acme'] });
  });

  afterAll(async () => {
    await authority.stop();
  });

  describe('a replica following pap', () => {
    beforeAll(async () => {
      stack = await startStack(authority);
      // pap had one policy deployed before this replica started.
      stack.pap.deploy(MASK, maskingPolicy(MASK, SHOW), { announce: false });
      await waitFor(() => stack.follower.ready, { what: 'the first snapshot' });
    });

    afterAll(async () => {
      await stack.stop();
    });

    const decide = (body: unknown = event(), path = '/event') =>
      request(stack.server).post(path).set('Authorization', `Bearer ${token}`).send(body as object);

    it('loads the snapshot from several messages and reports it', async () => {
      // Each document larger than this fake pap's messages: they came in pieces.
      expect(stack.pap.messageCounts.at(-1)).toBeGreaterThan(3);
      expect(stack.pap.requests.at(-1)).toEqual({ requester: 'pdp-test' });
      const ready = await request(stack.server).get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({ ready: true, revision: 1 });
      const status = await request(stack.server).get('/status');
      expect(status.status).toBe(200);
      expect(status.body).toMatchObject({ replica: 'pdp-test-1', ready: true, revision: 1, policies: 1, natsConnected: true });
      expect(typeof status.body.lastSyncAt).toBe('string');
      expect(status.body).toHaveProperty('lastChangeAt');
      expect(JSON.stringify(status.body)).not.toMatch(/urn:policy|<policy|mechanism/);
    });

    it('decides with the deployed policy: modifiers with Java types, delay and Policy-Revision', async () => {
      const response = await decide();
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/json');
      expect(response.headers['policy-revision']).toBe('1');
      expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.text));
      expect(response.body.id.identifier).toMatch(/^urn:decision:[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(response.body).toEqual({
        id: { identifier: response.body.id.identifier },
        eventAllowed: true,
        modifiers: [
          {
            name: 'user',
            expression: '$.name.firstName',
            engine: [
              {
                method: 'append',
                parameters: [{ name: 'suffix', value: { value: ' (masked)', type: 'java.lang.String', isComplex: false } }],
              },
            ],
          },
          {
            name: 'amount',
            expression: '$',
            engine: [
              {
                method: 'round',
                parameters: [
                  { name: 'interval', value: { value: 100, type: 'java.lang.Double', isComplex: false } },
                  { name: 'up', value: { value: true, type: 'java.lang.Boolean', isComplex: false } },
                  { name: 'options', value: { value: { mode: 'half' }, type: 'java.lang.Object', isComplex: true } },
                  { name: 'steps', value: { value: [1, 2], type: 'java.util.ArrayList', isComplex: true } },
                ],
              },
            ],
          },
        ],
        delay: 2000,
      });
      const second = await decide();
      expect(second.body.id.identifier).not.toBe(response.body.id.identifier);
    });

    it('inhibits when the condition holds, with no modifiers; accepts the urn form and a query string', async () => {
      const response = await request(stack.server)
        .post('/event?trace=1')
        .set('Authorization', `Bearer ${token}`)
        .send(event({ actionId: { urn: SHOW }, parameters: [{ name: 'amount', value: { value: 1000, type: 'java.lang.Integer', isComplex: false } }] }));
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ eventAllowed: false, modifiers: [], delay: 0 });
    });

    it('follows deploy and revoke messages', async () => {
      expect((await decide(exportEvent())).body.eventAllowed).toBe(true);
      const deployed = stack.pap.deploy(BLOCK, inhibitAll(BLOCK, EXPORT));
      await waitFor(() => stack.follower.active?.revision === deployed, { what: 'the deploy' });
      const blocked = await decide(exportEvent());
      expect(blocked.body.eventAllowed).toBe(false);
      expect(blocked.headers['policy-revision']).toBe(String(deployed));
      const revoked = stack.pap.revoke(BLOCK);
      await waitFor(() => stack.follower.active?.revision === revoked, { what: 'the revoke' });
      const allowed = await decide(exportEvent());
      expect(allowed.body.eventAllowed).toBe(true);
      expect(allowed.headers['policy-revision']).toBe(String(revoked));
      const status = await request(stack.server).get('/status');
      expect(status.body.revision).toBe(revoked);
      expect(typeof status.body.lastChangeAt).toBe('string');
      expect(status.body.lagMs).toBeGreaterThanOrEqual(0);
    });

    it('waits for Min-Policy-Revision, then answers with that revision', async () => {
      const wanted = stack.pap.revision + 1;
      const pending = decide(exportEvent()).set('Min-Policy-Revision', String(wanted)).then((r) => r);
      await waitFor(() => stack.waits.includes(wanted), { what: 'the request to wait' });
      stack.pap.deploy(BLOCK, inhibitAll(BLOCK, EXPORT));
      const response = await pending;
      expect(response.status).toBe(200);
      expect(response.headers['policy-revision']).toBe(String(wanted));
      expect(response.body.eventAllowed).toBe(false);
      // A revision that is already active answers at once.
      const again = await decide(exportEvent()).set('Min-Policy-Revision', '1');
      expect(again.status).toBe(200);
      stack.pap.revoke(BLOCK);
      await waitFor(() => stack.follower.active?.revision === stack.pap.revision);
    });

    it('answers 503 policy_revision_unavailable when the revision does not arrive in time', async () => {
      const wanted = stack.pap.revision + 50;
      const started = Date.now();
      const response = await decide().set('Min-Policy-Revision', String(wanted));
      expectProblem(response, 503, 'policy_revision_unavailable');
      expect(Date.now() - started).toBeGreaterThanOrEqual(WAIT_MS - 20);
      expect(response.headers['retry-after']).toBe('1');
      expect(response.body.detail).toContain(`\`${wanted}\``);
    });

    it.each(['abc', '-1', '1.5', '1, 2', ''])('refuses Min-Policy-Revision %j', async (value) => {
      const response = await decide().set('Min-Policy-Revision', value);
      expectProblem(response, 400, 'invalid_request');
      expect(response.body.detail).toMatch(/Min-Policy-Revision/);
    });

    it('takes a snapshot when a change message is missing (gap)', async () => {
      const before = stack.follower.active!.revision;
      stack.pap.deploy(BLOCK, inhibitAll(BLOCK, EXPORT), { announce: false }); // lost message
      const latest = stack.pap.deploy('urn:policy:acme:extra', allowAll('urn:policy:acme:extra', 'urn:action:acme:extra'));
      expect(latest).toBe(before + 2);
      const response = await decide(exportEvent()).set('Min-Policy-Revision', String(latest));
      expect(response.status).toBe(200);
      expect(response.body.eventAllowed).toBe(false);
      const metrics = await request(stack.server).get('/metrics');
      expect(metrics.text).toMatch(/resyncs_total\{reason="gap",service="pdp-service"\} 1/);
    });

    it('fetches a snapshot for a resync message', async () => {
      const revision = stack.pap.deployWithResync(BLOCK, allowAll(BLOCK, EXPORT));
      const response = await decide(exportEvent()).set('Min-Policy-Revision', String(revision));
      expect(response.status).toBe(200);
      expect(response.body.eventAllowed).toBe(true);
      expect((await request(stack.server).get('/metrics')).text).toMatch(/resyncs_total\{reason="message",service="pdp-service"\} 1/);
    });

    it('retries a snapshot whose messages arrive out of order or incomplete', async () => {
      stack.pap.misbehave.push('out-of-order', 'missing-message');
      const requests = stack.pap.requests.length;
      stack.pap.deploy(BLOCK, inhibitAll(BLOCK, EXPORT), { announce: false });
      const latest = stack.pap.revoke('urn:policy:acme:extra');
      await waitFor(() => stack.follower.active?.revision === latest, { timeoutMs: 10_000, what: 'the retried snapshot' });
      expect(stack.pap.requests.length - requests).toBe(3);
      expect((await decide(exportEvent())).body.eventAllowed).toBe(false);
      expect((await request(stack.server).get('/metrics')).text).toMatch(/resyncs_total\{reason="retry",service="pdp-service"\} 2/);
    });

    it('ignores unreadable change messages and recovers through the gap they leave', async () => {
      stack.pap.publish('{not json');
      stack.pap.revision++; // a revision whose message was garbage
      stack.pap.policies.delete(BLOCK);
      stack.pap.publish('{"revision": "x"}');
      const latest = stack.pap.deploy('urn:policy:acme:extra', allowAll('urn:policy:acme:extra', 'urn:action:acme:extra'));
      const response = await decide(exportEvent()).set('Min-Policy-Revision', String(latest));
      expect(response.body.eventAllowed).toBe(true);
      expect(stack.log.lines.filter((l) => l.msg === 'unreadable policy change ignored').length).toBe(2);
    });

    it('explains the decision: branch, conditions, contributions and policyRevision', async () => {
      const response = await decide(event(), '/event/explain');
      expect(response.status).toBe(200);
      const revision = stack.follower.active!.revision;
      expect(response.headers['policy-revision']).toBe(String(revision));
      expect(response.body).toMatchObject({ eventAllowed: true, delay: 2000, policyRevision: revision });
      expect(response.body.modifiers).toHaveLength(2);
      expect(response.body.explanation).toEqual([
        expect.objectContaining({
          policyId: MASK,
          mechanism: 0,
          event: SHOW,
          branch: { kind: 'else' },
          conditions: [{ branch: 0, value: false }],
          outcome: 'allow',
          delayMs: 2000,
          error: null,
        }),
      ]);
      // The mismatched comparison shows both values it compared: the event's (default 0) and the constant.
      expect(response.body.explanation[0].values).toEqual([
        {
          element: 'equals',
          condition: 0,
          depth: 0,
          operands: [
            { source: 'event `amount`', value: 5 },
            { source: 'constant', value: 1000 },
          ],
          value: false,
        },
      ]);
      expect(response.body.explanation[0].modifiers[0]).toMatchObject({ policyId: MASK, name: 'user', expression: '$.name.firstName' });
      expect(response.body.explanation[0].executions).toEqual([
        { action: 'urn:action:acme:notify', parameters: [{ name: 'channel', value: { value: 'audit', type: 'java.lang.String', isComplex: false } }] },
      ]);
      const inhibited = await decide(
        event({ parameters: [{ name: 'amount', value: { value: '1000', type: 'java.lang.String', isComplex: false } }] }),
        '/event/explain',
      );
      expect(inhibited.body.eventAllowed).toBe(false);
      expect(inhibited.body.explanation[0]).toMatchObject({ branch: { kind: 'if', index: 0 }, outcome: 'inhibit', reason: 'too much' });
    });

    it('logs one line per decision after answering, without parameter values, and bypasses express', async () => {
      const response = await decide();
      const id = response.body.id.identifier as string;
      const line = await waitFor(() => stack.log.lines.find((l) => l.msg === 'decision' && l.decisionId === id), { what: 'the decision line' });
      expect(line).toMatchObject({
        action: SHOW,
        solution: 'acme',
        revision: stack.follower.active!.revision,
        matchedPolicies: [MASK],
        allowed: true,
        modifiers: 2,
        delayMs: 2000,
        errors: [],
        plannedExecutions: 1,
        executions: [{ policyId: MASK, action: 'urn:action:acme:notify' }],
        clientId: 'test-client',
        explain: false,
      });
      expect(typeof line.latencyUs).toBe('number');
      expect(JSON.stringify(line)).not.toMatch(/Ann|u1|audit/);
      expect(stack.log.lines.some((l) => l.msg === 'request' && l.path === '/event' && l.status === 200)).toBe(false);
      const metrics = (await request(stack.server).get('/metrics')).text;
      expect(metrics).not.toMatch(/http_requests_total\{[^}]*route="\/event"/);
      expect(metrics).toMatch(/decisions_total\{outcome="allow",service="pdp-service"\} [1-9]/);
      expect(metrics).toMatch(/decisions_total\{outcome="inhibit",service="pdp-service"\} [1-9]/);
      expect(metrics).toMatch(/decision_duration_seconds_count\{service="pdp-service"\} [1-9]/);
      expect(metrics).toMatch(new RegExp(`policy_revision\\{service="pdp-service"\\} ${stack.follower.active!.revision}`));
      expect(metrics).toMatch(/policy_compile_failures_total/);
      expect(metrics).toMatch(/explains_total\{outcome="allow",service="pdp-service"\} [1-9]/);
    });

    it('answers with the contract headers: Content-Type, Content-Length, Policy-Revision and X-Request-Id, also on problems', async () => {
      const response = await decide();
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/json');
      expect(response.headers['content-length']).toBe(String(Buffer.byteLength(response.text)));
      const active = stack.follower.active;
      expect(active).toBeDefined();
      expect(response.headers['policy-revision']).toBe(String(active?.revision));
      // Without a client's id, the request id is the UUID of the decision id.
      expect(`urn:decision:${response.headers['x-request-id']}`).toBe(response.body.id.identifier);
      const echoed = await request(stack.server).post('/event').set('Authorization', `Bearer ${token}`).set('X-Request-Id', 'client-id-7').send(event());
      expect(echoed.headers['x-request-id']).toBe('client-id-7');
      const refused = await request(stack.server).post('/event').set('X-Request-Id', 'client-id-8').send(event());
      expect(refused.status).toBe(401);
      expect(refused.headers['x-request-id']).toBe('client-id-8');
      const malformed = await request(stack.server).post('/event').set('Authorization', `Bearer ${token}`).set('Content-Type', 'application/json').send('{"x":');
      expect(malformed.status).toBe(400);
      expect(malformed.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    });

    it('keeps answering from the last good set when a deployed policy does not compile', async () => {
      const before = stack.follower.active!;
      stack.pap.deploy('urn:policy:acme:broken', '<policy xmlns="http://www.mydata-control.de/4.0/mydataLanguage" id="urn:policy:acme:broken"/>');
      await waitFor(async () => /policy_compile_failures_total\{source="change",service="pdp-service"\} 1/.test((await request(stack.server).get('/metrics')).text), {
        what: 'the compile failure',
      });
      expect(stack.follower.active).toBe(before);
      const response = await decide();
      expect(response.status).toBe(200);
      expect(response.headers['policy-revision']).toBe(String(before.revision));
      // Put pap back in a state that compiles, so later tests see a moving replica.
      stack.pap.policies.delete('urn:policy:acme:broken');
      const latest = stack.pap.deploy('urn:policy:acme:extra', allowAll('urn:policy:acme:extra', 'urn:action:acme:extra'));
      await waitFor(() => stack.follower.active?.revision === latest, { what: 'recovery' });
    });

    describe('bad input', () => {
      it('401 without a token, with a bare Bearer challenge', async () => {
        const response = await request(stack.server).post('/event').send(event());
        expectProblem(response, 401, 'unauthorized');
        expect(response.headers['www-authenticate']).toBe('Bearer realm="custos"');
      });

      it('401 for a forged token', async () => {
        // Another key pair, never published, claiming the real key id.
        const forged = new TestAuthority().mint({ scopes: ['event:decide'], solutions: ['acme'], kid: authority.kid });
        const response = await request(stack.server).post('/event').set('Authorization', `Bearer ${forged}`).send(event());
        expectProblem(response, 401, 'invalid_token');
        expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="custos", error="invalid_token"/);
        expect(response.text).not.toContain(forged);
      });

      it('401 for an HS256 token signed with the public key', async () => {
        const forged = jwt.sign({ scope: 'event:decide', solutions: ['*'] }, authority.publicKeyPem(), {
          algorithm: 'HS256',
          keyid: authority.kid,
          expiresIn: 600,
        });
        const response = await request(stack.server).post('/event').set('Authorization', `Bearer ${forged}`).send(event());
        expectProblem(response, 401, 'invalid_token');
      });

      it('401 for an expired token', async () => {
        const expired = authority.mint({ scopes: ['event:decide'], solutions: ['acme'], expiresInSeconds: -300 });
        const response = await request(stack.server).post('/event').set('Authorization', `Bearer ${expired}`).send(event());
        expectProblem(response, 401, 'invalid_token');
        expect(response.body.detail).toMatch(/expired/);
      });

      it('403 without the event:decide scope', async () => {
        const reader = authority.mint({ scopes: ['policy:read'], solutions: ['acme'] });
        const response = await request(stack.server).post('/event').set('Authorization', `Bearer ${reader}`).send(event());
        expectProblem(response, 403, 'insufficient_scope');
        expect(response.headers['www-authenticate']).toMatch(/error="insufficient_scope", scope="event:decide"/);
      });

      it('403 for an event of a foreign solution, in either actionId form, on both routes', async () => {
        const other = authority.mint({ scopes: ['event:decide'], solutions: ['globex'] });
        for (const [path, body] of [
          ['/event', event()],
          ['/event/explain', event()],
          ['/event', event({ actionId: { urn: SHOW } })],
        ] as const) {
          const response = await request(stack.server).post(path).set('Authorization', `Bearer ${other}`).send(body);
          expectProblem(response, 403, 'insufficient_scope');
          expect(response.body.detail).toBe('the token does not grant access to this solution');
        }
        const everything = authority.mint({ scopes: ['event:decide'], solutions: ['*'] });
        const allowed = await request(stack.server).post('/event').set('Authorization', `Bearer ${everything}`).send(event());
        expect(allowed.status).toBe(200);
      });

      it('415 for a body that is not JSON', async () => {
        const response = await request(stack.server)
          .post('/event')
          .set('Authorization', `Bearer ${token}`)
          .set('Content-Type', 'text/plain')
          .send(JSON.stringify(event()));
        expectProblem(response, 415, 'unsupported_media_type');
        const latin = await request(stack.server)
          .post('/event')
          .set('Authorization', `Bearer ${token}`)
          .set('Content-Type', 'application/json; charset=iso-8859-1')
          .send(JSON.stringify(event()));
        expectProblem(latin, 415, 'unsupported_media_type');
      });

      it('413 for a body over 1 MiB, declared or streamed', async () => {
        const big = JSON.stringify(event({ padding: 'x'.repeat(1024 * 1024) }));
        const response = await request(stack.server)
          .post('/event')
          .set('Authorization', `Bearer ${token}`)
          .set('Content-Type', 'application/json')
          .send(big);
        expectProblem(response, 413, 'payload_too_large');

        const { port } = stack.server.address() as AddressInfo;
        const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
          const req = httpRequest(
            { host: '127.0.0.1', port, method: 'POST', path: '/event', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked' } },
            (res) => {
              let body = '';
              res.on('data', (chunk: Buffer) => (body += chunk.toString()));
              res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
            },
          );
          req.on('error', reject);
          const piece = 'x'.repeat(64 * 1024);
          req.write('{"padding":"');
          for (let i = 0; i < 17; i++) req.write(piece);
          req.end('"}');
        });
        expect(streamed.status).toBe(413);
        expect(JSON.parse(streamed.body).code).toBe('payload_too_large');
        // Just under the limit is read (and then judged on its content).
        const fits = JSON.stringify({ ...event(), padding: 'x'.repeat(1024 * 1024 - 1000) });
        expect(Buffer.byteLength(fits)).toBeLessThanOrEqual(1024 * 1024);
        const ok = await request(stack.server).post('/event').set('Authorization', `Bearer ${token}`).set('Content-Type', 'application/json').send(fits);
        expect(ok.status).toBe(200);
      });

      it('400 malformed_json with line and column', async () => {
        const response = await request(stack.server)
          .post('/event')
          .set('Authorization', `Bearer ${token}`)
          .set('Content-Type', 'application/json')
          .send('{\n  "actionId": {"scope": "acme", "action": "show"},\n  "timestamp": ,\n}');
        expectProblem(response, 400, 'malformed_json');
        expect(response.body.errors[0]).toMatchObject({ line: 3, column: 16 });
        const empty = await request(stack.server).post('/event').set('Authorization', `Bearer ${token}`).set('Content-Type', 'application/json').send('');
        expectProblem(empty, 400, 'malformed_json');
        expect(empty.body.detail).toBe('the body is empty');
      });

      it('400 invalid_event with the path of every violation', async () => {
        const response = await decide({
          actionId: { scope: 'acme', action: 'show' },
          timestamp: 'yesterday',
          parameters: [{ name: 'user' }, { name: '', value: { value: 1, isComplex: 'no' } }],
        });
        expectProblem(response, 400, 'invalid_event');
        const errors = response.body.errors as Array<{ path: string; message: string }>;
        expect(errors).toEqual(
          expect.arrayContaining([
            { path: 'timestamp', message: 'must be of type integer' },
            { path: 'parameters[0].value', message: 'is required' },
            expect.objectContaining({ path: 'parameters[1].name' }),
            { path: 'parameters[1].value.isComplex', message: 'must be of type boolean' },
          ]),
        );
        const missing = await decide({ parameters: [] });
        expect(missing.body.errors).toEqual(
          expect.arrayContaining([
            { path: 'actionId', message: 'is required' },
            { path: 'timestamp', message: 'is required' },
          ]),
        );
        const badAction = await decide(event({ actionId: { scope: 'ACME', action: 'show me' } }));
        expectProblem(badAction, 400, 'invalid_event');
        expect((badAction.body.errors as Array<{ path: string }>).map((e) => e.path)).toEqual(
          expect.arrayContaining(['actionId.scope', 'actionId.action']),
        );
        const notObject = await decide([1, 2]);
        expectProblem(notObject, 400, 'invalid_event');
        expect(notObject.body.errors).toEqual([{ path: '(body)', message: 'must be of type object' }]);
      });

      it('400 for repeated parameter names, with the path', async () => {
        const value = { value: 1, type: 'java.lang.Integer', isComplex: false };
        const response = await decide(event({ parameters: [{ name: 'a', value }, { name: 'b', value }, { name: 'a', value }] }));
        expectProblem(response, 400, 'invalid_event');
        expect(response.body.errors).toEqual([{ path: 'parameters[2].name', message: 'repeats the name of parameters[0]' }]);
      });

      it('405 with Allow: POST for other methods on the decision routes', async () => {
        for (const path of ['/event', '/event/explain']) {
          const get = await request(stack.server).get(path).set('Authorization', `Bearer ${token}`);
          expectProblem(get, 405, 'method_not_allowed');
          expect(get.headers.allow).toBe('POST');
          const put = await request(stack.server).put(path).send(event());
          expectProblem(put, 405, 'method_not_allowed');
        }
      });

      it('404 for unknown routes', async () => {
        expectProblem(await request(stack.server).post('/eventz').set('Authorization', `Bearer ${token}`).send(event()), 404, 'not_found');
        expectProblem(await request(stack.server).get('/nothing'), 404, 'not_found');
      });

      it('counts rejected requests', async () => {
        const metrics = (await request(stack.server).get('/metrics')).text;
        expect(metrics).toMatch(/decisions_total\{outcome="rejected",service="pdp-service"\} [1-9]/);
        expect(metrics).toMatch(/decisions_total\{outcome="unavailable",service="pdp-service"\} [1-9]/);
      });
    });

    it('serves its OpenAPI document with every route and the docs page', async () => {
      const response = await request(stack.server).get('/openapi.json');
      expect(response.status).toBe(200);
      expect(response.body.openapi).toBe('3.1.0');
      expect(Object.keys(response.body.paths).sort()).toEqual(
        [
          '/docs',
          '/event',
          '/event/explain',
          '/events',
          '/access/v1/evaluation',
          '/access/v1/evaluations',
          '/.well-known/authzen-configuration',
          '/executions',
          '/executions/{id}/retry',
          '/health/live',
          '/health/ready',
          '/metrics',
          '/openapi.json',
          '/status',
        ].sort(),
      );
      expect(Object.keys(response.body.paths['/event'])).toEqual(['post']);
      const docs = await request(stack.server).get('/docs');
      expect(docs.status).toBe(200);
      expect(docs.text).toContain('POST /event/explain');
      expect((await request(stack.server).get('/health/live')).body).toEqual({ status: 'live' });
    });
  });

  describe('a replica without a snapshot yet', () => {
    let waiting: Stack;

    beforeAll(async () => {
      waiting = await startStack(authority, { withPap: false, defaultDecision: 'inhibit' });
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
      const response = await request(waiting.server).post('/event').set('Authorization', `Bearer ${token}`).send(event());
      expectProblem(response, 503, 'service_unavailable');
      expect(response.headers['retry-after']).toBe('1');
      const explain = await request(waiting.server).post('/event/explain').set('Authorization', `Bearer ${token}`).send(event());
      expectProblem(explain, 503, 'service_unavailable');
      // Bad input is still reported as such.
      const bad = await request(waiting.server).post('/event').set('Authorization', `Bearer ${token}`).send({});
      expectProblem(bad, 400, 'invalid_event');

      // pap comes up on this prefix: the retrying follower gets its snapshot.
      const pap = await FakePap.start(waiting.prefix);
      try {
        pap.deploy(MASK, allowAll(MASK, SHOW), { announce: false });
        await waitFor(async () => (await request(waiting.server).get('/health/ready')).status === 200, { timeoutMs: 10_000, what: 'readiness' });
        expect((await request(waiting.server).get('/health/ready')).body).toMatchObject({ ready: true, revision: 1 });
        const decided = await request(waiting.server).post('/event').set('Authorization', `Bearer ${token}`).send(event());
        expect(decided.status).toBe(200);
        expect(decided.body.eventAllowed).toBe(true);
        // DEFAULT_DECISION=inhibit applies where no mechanism decides.
        const other = await request(waiting.server).post('/event').set('Authorization', `Bearer ${token}`).send(exportEvent());
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
        verifier: new TokenVerifier({ jwksUrl: authority.jwksUrl }),
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
      const response = await request(app).post('/event').set('Authorization', `Bearer ${token}`).send(event());
      expectProblem(response, 500, 'internal_error');
      expect(response.body.detail).toBe('an internal error occurred; it has been logged');
      expect(response.body).not.toHaveProperty('errors');
      const line = await waitFor(() => log.lines.find((l) => l.msg === 'unhandled error'), { what: 'the error log line' });
      expect(line.level).toBe('error');
      expect(line.requestId).toBe(response.headers['x-request-id']);
    });
  });
});
