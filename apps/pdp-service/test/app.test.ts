import request from 'supertest';
import { waitFor } from '@custos/test-kit';
import { allowAll, inhibitAll } from './support/policies';
import { SHOW, EXPORT, MASK, BLOCK, WAIT_MS, event, exportEvent, expectProblem, useFollowingStack } from './support/nats-stack';
import { useAuthority } from './support/use-pdp';

describe('pdp-service over real NATS', () => {
  const auth = useAuthority();

  describe('a replica following pap', () => {
    // pap had one policy deployed before this replica started.
    const { stack, decide } = useFollowingStack(() => auth.authority, () => auth.token);

    it('loads the snapshot from several messages and reports it', async () => {
      // Each document larger than this fake pap's messages: they came in pieces.
      expect(stack().pap.messageCounts.at(-1)).toBeGreaterThan(3);
      expect(stack().pap.requests.at(-1)).toEqual({ requester: 'pdp-test' });
      const ready = await request(stack().server).get('/health/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({ ready: true, revision: 1 });
      const status = await request(stack().server).get('/status');
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
      const response = await request(stack().server)
        .post('/event?trace=1')
        .set('Authorization', `Bearer ${auth.token}`)
        .send(event({ actionId: { urn: SHOW }, parameters: [{ name: 'amount', value: { value: 1000, type: 'java.lang.Integer', isComplex: false } }] }));
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ eventAllowed: false, modifiers: [], delay: 0 });
    });

    it('follows deploy and revoke messages', async () => {
      expect((await decide(exportEvent())).body.eventAllowed).toBe(true);
      const deployed = stack().pap.deploy(BLOCK, inhibitAll(BLOCK, EXPORT));
      await waitFor(() => stack().follower.active?.revision === deployed, { what: 'the deploy' });
      const blocked = await decide(exportEvent());
      expect(blocked.body.eventAllowed).toBe(false);
      expect(blocked.headers['policy-revision']).toBe(String(deployed));
      const revoked = stack().pap.revoke(BLOCK);
      await waitFor(() => stack().follower.active?.revision === revoked, { what: 'the revoke' });
      const allowed = await decide(exportEvent());
      expect(allowed.body.eventAllowed).toBe(true);
      expect(allowed.headers['policy-revision']).toBe(String(revoked));
      const status = await request(stack().server).get('/status');
      expect(status.body.revision).toBe(revoked);
      expect(typeof status.body.lastChangeAt).toBe('string');
      expect(status.body.lagMs).toBeGreaterThanOrEqual(0);
    });

    it('waits for Min-Policy-Revision, then answers with that revision', async () => {
      const wanted = stack().pap.revision + 1;
      const pending = decide(exportEvent()).set('Min-Policy-Revision', String(wanted)).then((r) => r);
      await waitFor(() => stack().waits.includes(wanted), { what: 'the request to wait' });
      stack().pap.deploy(BLOCK, inhibitAll(BLOCK, EXPORT));
      const response = await pending;
      expect(response.status).toBe(200);
      expect(response.headers['policy-revision']).toBe(String(wanted));
      expect(response.body.eventAllowed).toBe(false);
      // A revision that is already active answers at once.
      const again = await decide(exportEvent()).set('Min-Policy-Revision', '1');
      expect(again.status).toBe(200);
      stack().pap.revoke(BLOCK);
      await waitFor(() => stack().follower.active?.revision === stack().pap.revision);
    });

    it('answers 503 policy_revision_unavailable when the revision does not arrive in time', async () => {
      const wanted = stack().pap.revision + 50;
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
      const before = stack().follower.active!.revision;
      stack().pap.deploy(BLOCK, inhibitAll(BLOCK, EXPORT), { announce: false }); // lost message
      const latest = stack().pap.deploy('urn:policy:acme:extra', allowAll('urn:policy:acme:extra', 'urn:action:acme:extra'));
      expect(latest).toBe(before + 2);
      const response = await decide(exportEvent()).set('Min-Policy-Revision', String(latest));
      expect(response.status).toBe(200);
      expect(response.body.eventAllowed).toBe(false);
      const metrics = await request(stack().server).get('/metrics');
      expect(metrics.text).toMatch(/resyncs_total\{reason="gap",service="pdp-service"\} 1/);
    });

    it('fetches a snapshot for a resync message', async () => {
      const revision = stack().pap.deployWithResync(BLOCK, allowAll(BLOCK, EXPORT));
      const response = await decide(exportEvent()).set('Min-Policy-Revision', String(revision));
      expect(response.status).toBe(200);
      expect(response.body.eventAllowed).toBe(true);
      expect((await request(stack().server).get('/metrics')).text).toMatch(/resyncs_total\{reason="message",service="pdp-service"\} 1/);
    });

    it('retries a snapshot whose messages arrive out of order or incomplete', async () => {
      stack().pap.misbehave.push('out-of-order', 'missing-message');
      const requests = stack().pap.requests.length;
      stack().pap.deploy(BLOCK, inhibitAll(BLOCK, EXPORT), { announce: false });
      const latest = stack().pap.revoke('urn:policy:acme:extra');
      await waitFor(() => stack().follower.active?.revision === latest, { timeoutMs: 10_000, what: 'the retried snapshot' });
      expect(stack().pap.requests.length - requests).toBe(3);
      expect((await decide(exportEvent())).body.eventAllowed).toBe(false);
      expect((await request(stack().server).get('/metrics')).text).toMatch(/resyncs_total\{reason="retry",service="pdp-service"\} 2/);
    });

    it('ignores unreadable change messages and recovers through the gap they leave', async () => {
      stack().pap.publish('{not json');
      stack().pap.revision++; // a revision whose message was garbage
      stack().pap.policies.delete(BLOCK);
      stack().pap.publish('{"revision": "x"}');
      const latest = stack().pap.deploy('urn:policy:acme:extra', allowAll('urn:policy:acme:extra', 'urn:action:acme:extra'));
      const response = await decide(exportEvent()).set('Min-Policy-Revision', String(latest));
      expect(response.body.eventAllowed).toBe(true);
      expect(stack().log.lines.filter((l) => l.msg === 'unreadable policy change ignored').length).toBe(2);
    });

    it('explains the decision: branch, conditions, contributions and policyRevision', async () => {
      const response = await decide(event(), '/event/explain');
      expect(response.status).toBe(200);
      const revision = stack().follower.active!.revision;
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
      const line = await waitFor(() => stack().log.lines.find((l) => l.msg === 'decision' && l.decisionId === id), { what: 'the decision line' });
      expect(line).toMatchObject({
        action: SHOW,
        solution: 'acme',
        revision: stack().follower.active!.revision,
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
      expect(stack().log.lines.some((l) => l.msg === 'request' && l.path === '/event' && l.status === 200)).toBe(false);
      const metrics = (await request(stack().server).get('/metrics')).text;
      expect(metrics).not.toMatch(/http_requests_total\{[^}]*route="\/event"/);
      expect(metrics).toMatch(/decisions_total\{outcome="allow",service="pdp-service"\} [1-9]/);
      expect(metrics).toMatch(/decisions_total\{outcome="inhibit",service="pdp-service"\} [1-9]/);
      expect(metrics).toMatch(/decision_duration_seconds_count\{service="pdp-service"\} [1-9]/);
      expect(metrics).toMatch(new RegExp(`policy_revision\\{service="pdp-service"\\} ${stack().follower.active!.revision}`));
      expect(metrics).toMatch(/policy_compile_failures_total/);
      expect(metrics).toMatch(/explains_total\{outcome="allow",service="pdp-service"\} [1-9]/);
    });

    it('answers with the contract headers: Content-Type, Content-Length, Policy-Revision and X-Request-Id, also on problems', async () => {
      const response = await decide();
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('application/json');
      expect(response.headers['content-length']).toBe(String(Buffer.byteLength(response.text)));
      const active = stack().follower.active;
      expect(active).toBeDefined();
      expect(response.headers['policy-revision']).toBe(String(active?.revision));
      // Without a client's id, the request id is the UUID of the decision id.
      expect(`urn:decision:${response.headers['x-request-id']}`).toBe(response.body.id.identifier);
      const echoed = await request(stack().server).post('/event').set('Authorization', `Bearer ${auth.token}`).set('X-Request-Id', 'client-id-7').send(event());
      expect(echoed.headers['x-request-id']).toBe('client-id-7');
      const refused = await request(stack().server).post('/event').set('X-Request-Id', 'client-id-8').send(event());
      expect(refused.status).toBe(401);
      expect(refused.headers['x-request-id']).toBe('client-id-8');
      const malformed = await request(stack().server).post('/event').set('Authorization', `Bearer ${auth.token}`).set('Content-Type', 'application/json').send('{"x":');
      expect(malformed.status).toBe(400);
      expect(malformed.headers['x-request-id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    });

    it('keeps answering from the last good set when a deployed policy does not compile', async () => {
      const before = stack().follower.active!;
      stack().pap.deploy('urn:policy:acme:broken', '<policy xmlns="http://www.mydata-control.de/4.0/mydataLanguage" id="urn:policy:acme:broken"/>');
      await waitFor(async () => /policy_compile_failures_total\{source="change",service="pdp-service"\} 1/.test((await request(stack().server).get('/metrics')).text), {
        what: 'the compile failure',
      });
      expect(stack().follower.active).toBe(before);
      const response = await decide();
      expect(response.status).toBe(200);
      expect(response.headers['policy-revision']).toBe(String(before.revision));
      // Put pap back in a state that compiles, so later tests see a moving replica.
      stack().pap.policies.delete('urn:policy:acme:broken');
      const latest = stack().pap.deploy('urn:policy:acme:extra', allowAll('urn:policy:acme:extra', 'urn:action:acme:extra'));
      await waitFor(() => stack().follower.active?.revision === latest, { what: 'recovery' });
    });

    it('counts the answers it could not give for want of a revision', async () => {
      // The 503 policy_revision_unavailable above; bad input's counts are in app-bad-input.test.ts.
      const metrics = (await request(stack().server).get('/metrics')).text;
      expect(metrics).toMatch(/decisions_total\{outcome="unavailable",service="pdp-service"\} [1-9]/);
    });

    it('serves its OpenAPI document with every route and the docs page', async () => {
      const response = await request(stack().server).get('/openapi.json');
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
      const docs = await request(stack().server).get('/docs');
      expect(docs.status).toBe(200);
      expect(docs.text).toContain('POST /event/explain');
      expect((await request(stack().server).get('/health/live')).body).toEqual({ status: 'live' });
    });
  });
});
