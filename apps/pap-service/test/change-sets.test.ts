import request from 'supertest';
import { deployedPolicy, dump, outbox, policyXml, revision, startHarness, timerXml, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const changes = (body: unknown, bearer = h.bearer()) => request(h.app).post('/ws/changes').set('Authorization', bearer).send(body as object);
const addPolicy = (id: string) => request(h.app).post('/ws/policy').set('Authorization', h.bearer()).type('application/xml').send(policyXml(id));
const deploy = (id: string) => request(h.app).post(`/ws/policy/${id}/deploy`).set('Authorization', h.bearer());

const A = 'urn:policy:acme:cs-a';
const B = 'urn:policy:acme:cs-b';
const C = 'urn:policy:acme:cs-c';
const T = 'urn:timer:acme:cs-t';

test('a valid change set is one revision and one outbox row carrying every document it deploys and revokes', async () => {
  expect((await addPolicy(C)).status).toBe(201);
  expect((await deploy(C)).status).toBe(200);
  const before = await revision(h.pool);
  const rowsBefore = (await outbox(h.pool)).length;
  const answer = await changes({
    changes: [
      { op: 'add', kind: 'policy', xml: policyXml(A) },
      { op: 'add', kind: 'policy', id: B, xml: policyXml(B) },
      { op: 'add', kind: 'timer', xml: timerXml(T) },
      { op: 'deploy', kind: 'policy', id: A },
      { op: 'deploy', kind: 'policy', id: B },
      { op: 'deploy', kind: 'timer', id: T },
      { op: 'revoke', kind: 'policy', id: C },
    ],
  });
  expect(answer.status).toBe(200);
  expect(answer.body).toEqual({ revision: before + 1, changed: true });
  expect(answer.headers['policy-revision']).toBe(String(before + 1));
  expect(await revision(h.pool)).toBe(before + 1);
  const rows = await outbox(h.pool);
  expect(rows).toHaveLength(rowsBefore + 1);
  expect(rows.at(-1)!.message).toEqual({
    revision: before + 1,
    type: 'documents',
    deploy: [deployedPolicy(A, policyXml(A), before + 1), deployedPolicy(B, policyXml(B), before + 1), { id: T, xml: timerXml(T) }],
    revoke: [C],
  });
  const deployed = await h.pool.query<{ id: string; deployed_at: string }>('SELECT id, deployed_at FROM pap.policies WHERE deployed ORDER BY id');
  expect(deployed.rows).toEqual([
    { id: A, deployed_at: String(before + 1) },
    { id: B, deployed_at: String(before + 1) },
  ]);
  expect((await request(h.app).get(`/ws/timer/${T}/status`).set('Authorization', h.bearer())).body).toBe(true);
});

test('a change set with one invalid item changes nothing, and locates every problem', async () => {
  const before = await dump(h.pool);
  const broken = policyXml('urn:policy:acme:cs-broken').replace('</policy>', '');
  const answer = await changes({
    changes: [
      { op: 'add', kind: 'policy', xml: policyXml('urn:policy:acme:cs-new') },
      { op: 'deploy', kind: 'policy', id: 'urn:policy:acme:cs-new' },
      { op: 'add', kind: 'policy', xml: broken },
      { op: 'revoke', kind: 'policy', id: A },
      { op: 'deploy', kind: 'timer' },
      { op: 'remove', kind: 'policy', id: 'urn:timer:acme:x' },
    ],
  });
  expect(answer.status).toBe(400);
  expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(answer.body.code).toBe('invalid_policy');
  const paths = (answer.body.errors as Array<{ path: string; line?: number }>).map((error) => error.path);
  expect(paths[0]).toBe('changes[2].xml');
  expect(paths.slice(-2)).toEqual(['changes[4].id', 'changes[5].id']);
  expect((answer.body.errors as Array<{ line?: number }>)[0]!.line).toEqual(expect.any(Number));
  expect(await dump(h.pool)).toEqual(before);
});

test('an item that conflicts with what is stored rolls back the items before it', async () => {
  const before = await dump(h.pool);
  const missing = await changes({
    changes: [
      { op: 'revoke', kind: 'policy', id: A },
      { op: 'add', kind: 'policy', xml: policyXml('urn:policy:acme:cs-later') },
      { op: 'deploy', kind: 'policy', id: 'urn:policy:acme:cs-nowhere' },
    ],
  });
  expect(missing.status).toBe(404);
  expect(missing.body).toMatchObject({ code: 'not_found', errors: [{ path: 'changes[2]' }] });
  const taken = await changes({ changes: [{ op: 'remove', kind: 'policy', id: B }, { op: 'add', kind: 'policy', xml: policyXml(A) }] });
  expect(taken.status).toBe(409);
  expect(taken.body).toMatchObject({ code: 'conflict', errors: [{ path: 'changes[1]' }] });
  expect(await dump(h.pool)).toEqual(before);
});

test('a replace of a deployed document keeps its deployment; a set that changes no deployed document takes no revision', async () => {
  const before = await revision(h.pool);
  const replaced = await changes({ changes: [{ op: 'replace', kind: 'policy', id: A, xml: policyXml(A, { name: 'v2' }) }, { op: 'revoke', kind: 'timer', id: 'urn:timer:acme:never' }] });
  expect(replaced.status).toBe(404);
  const again = await changes({ changes: [{ op: 'replace', kind: 'policy', id: A, xml: policyXml(A, { name: 'v2' }) }] });
  expect(again.body).toEqual({ revision: before + 1, changed: true });
  const last = (await outbox(h.pool)).at(-1)!;
  // The lone document travels as the usual `deploy`, still at the revision its deployment began.
  expect(last.message).toEqual({ revision: before + 1, type: 'deploy', policy: deployedPolicy(A, policyXml(A, { name: 'v2' }), before) });
  const quiet = await changes({ changes: [{ op: 'add', kind: 'policy', xml: policyXml('urn:policy:acme:cs-quiet') }, { op: 'revoke', kind: 'policy', id: 'urn:policy:acme:cs-quiet' }] });
  expect(quiet.body).toEqual({ revision: before + 1, changed: false });
  expect(await revision(h.pool)).toBe(before + 1);
});

test('every item needs a solution the token covers, and the body is bounded', async () => {
  const before = await dump(h.pool);
  const foreign = await changes({
    changes: [
      { op: 'add', kind: 'policy', xml: policyXml('urn:policy:acme:cs-mine') },
      { op: 'deploy', kind: 'policy', id: 'urn:policy:globex:theirs' },
    ],
  });
  expect(foreign.status).toBe(403);
  const readOnly = await changes({ changes: [{ op: 'deploy', kind: 'policy', id: A }] }, h.bearer({ scopes: ['policy:read'] }));
  expect(readOnly.status).toBe(403);
  const tooMany = await changes({ changes: Array.from({ length: 201 }, () => ({ op: 'revoke', kind: 'policy', id: A })) });
  expect(tooMany.status).toBe(400);
  expect(tooMany.body.code).toBe('invalid_request');
  const unknownOp = await changes({ changes: [{ op: 'publish', kind: 'policy', id: A }] });
  expect(unknownOp.status).toBe(400);
  expect(unknownOp.body.errors).toEqual([{ path: 'changes[0].op', message: 'must be one of `add`, `replace`, `deploy`, `revoke`, `remove`' }]);
  const unknownKind = await changes({ changes: [{ op: 'deploy', kind: 'component', id: A }] });
  expect(unknownKind.body.errors).toEqual([{ path: 'changes[0].kind', message: 'must be one of `policy`, `timer`' }]);
  expect((await changes({ changes: [] })).status).toBe(400);
  const shapeOnly = await changes({ changes: [{ op: 'deploy', kind: 'timer' }, { op: 'add', kind: 'policy' }, { op: 'revoke', kind: 'policy', id: A, xml: '<policy/>' }] });
  expect(shapeOnly.status).toBe(400);
  expect(shapeOnly.body.code).toBe('invalid_request');
  expect(shapeOnly.body.errors.map((error: { path: string }) => error.path)).toEqual(['changes[0].id', 'changes[1].xml', 'changes[2].xml']);
  expect(await dump(h.pool)).toEqual(before);
});

test('the change set is in the OpenAPI document', async () => {
  const document = await request(h.app).get('/openapi.json');
  expect(document.status).toBe(200);
  expect(document.body.paths['/ws/changes'].post.requestBody.content['application/json'].schema.properties.changes.maxItems).toBe(200);
});
