import request from 'supertest';
import type { Component } from '@custos/contracts';
import { readSnapshot } from '../src/propagation/snapshot';
import { dump, outbox, policyXml, revision, startHarness, timerXml, type Harness } from './harness';

/** Timers mirror policies (api.md §4): same answers, same auth and solution rules, the same revisions. */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const enc = encodeURIComponent;
const as = (auth = h.bearer()) => ({
  post: (path: string, xml?: string) => {
    const call = request(h.app).post(path).set('Authorization', auth);
    return xml === undefined ? call : call.type('application/xml').send(xml);
  },
  put: (path: string, xml: string) => request(h.app).put(path).set('Authorization', auth).type('application/xml').send(xml),
  get: (path: string) => request(h.app).get(path).set('Authorization', auth),
  delete: (path: string) => request(h.app).delete(path).set('Authorization', auth),
});

test('add, show, deploy, status, revoke and remove a timer, each with the answers policies give', async () => {
  const id = 'urn:timer:acme:nightly';
  const added = await as().post('/ws/timer', timerXml(id));
  expect(added.status).toBe(201);
  expect(added.body).toBe(true);
  expect(added.headers.location).toBe(`/ws/timer/${id}`);
  expect((await as().post('/ws/timer', timerXml(id))).status).toBe(409);

  const shown = await as().get(`/ws/timer/${id}`);
  expect(shown.body).toMatchObject({ id: { identifier: id }, cron: '0 0 2 * * ?', description: 'nightly', deployed: false, xml: timerXml(id) });
  const xml = await as().get(`/ws/timer/${id}`).set('Accept', 'application/xml');
  expect(xml.headers['content-type']).toMatch(/^application\/xml/);
  expect(xml.text).toBe(timerXml(id));
  expect((await as().get(`/ws/timer/${id}/status`)).body).toBe(false);

  const before = await revision(h.pool);
  const deployed = await as().post(`/ws/timer/${id}/deploy`);
  expect(deployed.body).toBe(true);
  expect(deployed.headers['policy-revision']).toBe(String(before + 1));
  expect((await as().post(`/ws/timer/${id}/deploy`)).headers['policy-revision']).toBe(String(before + 1));
  expect((await as().get(`/ws/timer/${id}/status`)).body).toBe(true);
  expect((await outbox(h.pool)).at(-1)!.message).toEqual({ revision: before + 1, type: 'deploy', policy: { id, xml: timerXml(id) } });

  // Replacing a deployed timer re-deploys it at a new revision.
  const replaced = await as().put(`/ws/timer/${id}`, timerXml(id, '0 30 3 ? * MON'));
  expect(replaced.body).toBe(true);
  expect(replaced.headers['policy-revision']).toBe(String(before + 2));
  expect((await outbox(h.pool)).at(-1)!.message.policy).toEqual({ id, xml: timerXml(id, '0 30 3 ? * MON') });

  const revoked = await as().get(`/ws/timer/${id}/revoke`);
  expect(revoked.body).toBe(true);
  expect(revoked.headers['policy-revision']).toBe(String(before + 3));
  expect((await outbox(h.pool)).at(-1)!.message).toEqual({ revision: before + 3, type: 'revoke', policyId: id });
  expect((await as().post(`/ws/timer/${id}/revoke`)).body).toBe(false);

  expect((await as().delete(`/ws/timer/${id}`)).body).toBe(true);
  expect((await as().delete(`/ws/timer/${id}`)).body).toBe(false);
  expect((await as().get(`/ws/timer/${id}`)).status).toBe(404);
  expect((await as().post(`/ws/timer/${id}/deploy`)).body).toBe(false);
});

test('removing a deployed timer revokes it in the same transaction', async () => {
  const id = 'urn:timer:acme:gone';
  await as().post('/ws/timer', timerXml(id));
  const deployed = Number((await as().post(`/ws/timer/${id}/deploy`)).headers['policy-revision']);
  const removed = await as().delete(`/ws/timer/${id}`);
  expect(removed.body).toBe(true);
  expect(removed.headers['policy-revision']).toBe(String(deployed + 1));
  expect((await outbox(h.pool)).at(-1)!.message).toEqual({ revision: deployed + 1, type: 'revoke', policyId: id });
});

test('refuses invalid timers with every problem located, and stores nothing', async () => {
  const before = await dump(h.pool);
  const bad = await as().post(
    '/ws/timer',
    timerXml('urn:timer:acme:bad', '0 0 0 1 * MON', 'urn:action:globex:cleanup').replace('description="nightly"', 'description="nightly" color="red"'),
  );
  expect(bad.status).toBe(400);
  expect(bad.body.code).toBe('invalid_policy');
  expect(bad.body.errors.map((e: { line: number }) => e.line)).toEqual([2, 2, 3]);
  expect(bad.body.errors.map((e: { message: string }) => e.message)).toEqual([
    expect.stringMatching(/^attribute `cron`: day-of-month `1` and day-of-week `MON` are both given/),
    'unknown attribute `color` on `timer`',
    expect.stringMatching(/belongs to solution `globex`/),
  ]);
  // cron-parser's full check: a schedule that reads but never fires.
  const never = await as().post('/ws/timer', timerXml('urn:timer:acme:never', '0 0 0 30 2 ?'));
  expect(never.status).toBe(400);
  expect(never.body.errors).toEqual([expect.objectContaining({ line: 2, message: expect.stringMatching(/^attribute `cron`: `0 0 0 30 2 \?` is not a valid schedule/) })]);
  expect((await as().post('/ws/timer', '<!DOCTYPE x><timer/>')).body.errors[0].message).toMatch(/DOCTYPE/i);
  const mismatch = await as().put('/ws/timer/urn:timer:acme:other', timerXml('urn:timer:acme:bad'));
  expect(mismatch.status).toBe(400);
  expect((await as().put('/ws/timer/urn:timer:acme:missing', timerXml('urn:timer:acme:missing'))).status).toBe(404);
  expect(await dump(h.pool)).toEqual(before);
});

test('keeps solutions apart and checks ids and scopes', async () => {
  await as(h.bearer({ solutions: ['*'] })).post('/ws/timer', timerXml('urn:timer:globex:theirs'));
  await as().post('/ws/timer', timerXml('urn:timer:acme:b'));
  await as().post('/ws/timer', timerXml('urn:timer:acme:a'));
  await as().post('/ws/timer/urn:timer:acme:a/deploy');
  expect((await as().get('/ws/timer-ids')).body).toEqual([{ identifier: 'urn:timer:acme:a' }, { identifier: 'urn:timer:acme:b' }]);
  expect((await as().get('/ws/timer-ids/deployed')).body).toEqual([{ identifier: 'urn:timer:acme:a' }]);
  expect((await as(h.bearer({ solutions: ['*'] })).get('/ws/timer-ids')).body).toHaveLength(3);
  // A foreign timer is never confirmed to exist.
  for (const path of ['/ws/timer/urn:timer:globex:theirs', '/ws/timer/urn:timer:globex:nothing']) {
    expect((await as().get(path)).status).toBe(403);
  }
  expect((await as().post('/ws/timer', timerXml('urn:timer:globex:sneaky'))).status).toBe(403);
  expect((await as().get(`/ws/timer/${enc('urn:policy:acme:a')}`)).body.code).toBe('invalid_id');
  const reader = h.bearer({ scopes: ['policy:read'] });
  expect((await as(reader).get('/ws/timer-ids')).status).toBe(200);
  expect((await as(reader).post('/ws/timer/urn:timer:acme:a/revoke')).status).toBe(403);
  expect((await request(h.app).get('/ws/timer-ids')).status).toBe(401);
});

test('timers share the one revision counter and travel in the snapshot beside policies and components', async () => {
  const pip: Component = {
    id: { componentType: 'PIP', identifier: 'urn:component:acme:pip:hr' },
    urls: ['http://hr.acme.internal/pip'],
    componentInterfaces: [{ type: 'InterfaceDescription', methodName: 'urn:info:acme:role', returnType: 'java.lang.String', parameters: [] }],
  };
  await request(h.app).post('/ws/component').set('Authorization', h.bearer()).send(pip);
  await as().post('/ws/policy', policyXml('urn:policy:acme:p'));
  await as().post('/ws/policy/urn:policy:acme:p/deploy');
  const snapshot = await readSnapshot(h.pool);
  expect(snapshot.revision).toBe(await revision(h.pool));
  expect(snapshot.policies.map((p) => p.id)).toEqual(['urn:policy:acme:p', 'urn:timer:acme:a']);
  expect(snapshot.components).toEqual([pip]);
  const entries = await outbox(h.pool);
  expect(entries.map((e) => e.revision)).toEqual(Array.from({ length: entries.length }, (_, i) => i + 1));
});
