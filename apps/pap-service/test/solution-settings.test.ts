import request from 'supertest';
import { SCOPES } from '@custos/contracts';
import { readSnapshot } from '../src/propagation/snapshot';
import { outbox, revision, startHarness, type Harness } from './harness';

/** A solution's settings (its default decisions): read, replaced as a revision of the deployed set, refused when wrong. */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const path = (solution = 'acme') => `/ws/solutions/${solution}/settings`;
const read = (solution = 'acme', bearer = h.bearer()) => request(h.app).get(path(solution)).set('Authorization', bearer);
const write = (body: unknown, solution = 'acme', bearer = h.bearer()) => request(h.app).put(path(solution)).set('Authorization', bearer).send(body as object);

test('a solution without settings has `{}` at the current revision', async () => {
  const current = await revision(h.pool);
  const answer = await read('fresh', h.bearer({ solutions: ['fresh'] }));
  expect(answer.status).toBe(200);
  expect(answer.body).toEqual({ solution: 'fresh', settings: {}, revision: current });
  expect(answer.headers['policy-revision']).toBe(String(current));
});

test('changed settings take one revision and a `settings` outbox change; the same settings again take none', async () => {
  const start = await revision(h.pool);
  const changed = await write({ defaultDecision: 'inhibit', authzenDefault: 'allow' });
  expect(changed.status).toBe(200);
  expect(changed.body).toEqual({ solution: 'acme', settings: { defaultDecision: 'inhibit', authzenDefault: 'allow' }, revision: start + 1, changed: true });
  expect(changed.headers['policy-revision']).toBe(String(start + 1));
  expect((await outbox(h.pool)).at(-1)!.message).toEqual({
    revision: start + 1,
    type: 'settings',
    solution: 'acme',
    settings: { defaultDecision: 'inhibit', authzenDefault: 'allow' },
  });

  // Key order does not make settings different.
  const same = await write({ authzenDefault: 'allow', defaultDecision: 'inhibit' });
  expect(same.body).toMatchObject({ revision: start + 1, changed: false });
  expect(await revision(h.pool)).toBe(start + 1);
  expect((await read()).body).toEqual({ solution: 'acme', settings: { defaultDecision: 'inhibit', authzenDefault: 'allow' }, revision: start + 1 });
});

test('a snapshot carries the settings of every solution that has any; `{}` removes them again', async () => {
  await write({ defaultDecision: 'allow' }, 'beta', h.bearer({ solutions: ['beta'] }));
  await write({ defaultDecision: 'inhibit' });
  const snapshot = await readSnapshot(h.pool);
  expect(snapshot.settings).toEqual([
    { solution: 'acme', settings: { defaultDecision: 'inhibit' } },
    { solution: 'beta', settings: { defaultDecision: 'allow' } },
  ]);

  const start = await revision(h.pool);
  const cleared = await write({}, 'beta', h.bearer({ solutions: ['beta'] }));
  expect(cleared.body).toEqual({ solution: 'beta', settings: {}, revision: start + 1, changed: true });
  expect((await outbox(h.pool)).at(-1)!.message).toEqual({ revision: start + 1, type: 'settings', solution: 'beta', settings: {} });
  expect((await readSnapshot(h.pool)).settings).toEqual([{ solution: 'acme', settings: { defaultDecision: 'inhibit' } }]);
});

test('an unknown setting or value is a 400 with its path, and changes nothing', async () => {
  const start = await revision(h.pool);
  const before = (await read()).body;
  const badValue = await write({ defaultDecision: 'deny' });
  expect(badValue.status).toBe(400);
  expect(badValue.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(badValue.body.code).toBe('invalid_request');
  expect(badValue.body.errors).toEqual([{ path: 'defaultDecision', message: 'must be one of `allow`, `inhibit`' }]);
  const badAuthzen = await write({ authzenDefault: 'inhibit' });
  expect(badAuthzen.body.errors).toEqual([{ path: 'authzenDefault', message: 'must be one of `deny`, `allow`' }]);

  const unknown = await write({ defaultDecision: 'allow', mood: 'sunny' });
  expect(unknown.status).toBe(400);
  expect(unknown.body.errors.map((e: { path: string }) => e.path)).toContain('mood');

  const notJson = await request(h.app).put(path()).set('Authorization', h.bearer()).set('Content-Type', 'application/json').send('{"defaultDecision": ');
  expect(notJson.status).toBe(400);
  expect(notJson.body.code).toBe('malformed_json');

  expect(await revision(h.pool)).toBe(start);
  expect((await read()).body).toEqual(before);
});

test('a path that names no solution is a 400 `invalid_id`', async () => {
  const answer = await read('Not A Solution', h.bearer({ solutions: ['*'] }));
  expect(answer.status).toBe(400);
  expect(answer.body.code).toBe('invalid_id');
  expect(answer.body.detail).toContain('expected lower-case letters, digits');
});

test('a solution name over 128 characters is refused for its length, not its characters', async () => {
  const answer = await read('a'.repeat(129), h.bearer({ solutions: ['*'] }));
  expect(answer.status).toBe(400);
  expect(answer.body.code).toBe('invalid_id');
  expect(answer.body.detail).toBe('the solution name in the URL is 129 characters long; it may have at most 128');
  expect((await read('a'.repeat(128), h.bearer({ solutions: ['*'] }))).status).toBe(200);
});

test('a solution the token does not cover is a 403 for reading and for writing, and nothing changes', async () => {
  const start = await revision(h.pool);
  const foreign = h.bearer({ solutions: ['beta'] });
  expect((await read('acme', foreign)).status).toBe(403);
  const refused = await write({ defaultDecision: 'allow' }, 'acme', foreign);
  expect(refused.status).toBe(403);
  expect(refused.headers['www-authenticate']).toMatch(/insufficient_scope/);
  expect(await revision(h.pool)).toBe(start);
});

test('writing needs `solution:admin`; `policy:write` is not enough, `policy:read` reads', async () => {
  const start = await revision(h.pool);
  const deployer = h.bearer({ scopes: [SCOPES.policyRead, SCOPES.policyWrite] });
  const refused = await write({ defaultDecision: 'allow' }, 'acme', deployer);
  expect(refused.status).toBe(403);
  expect(refused.body.detail).toContain('solution:admin');
  expect((await read('acme', deployer)).status).toBe(200);
  expect((await read('acme', h.bearer({ scopes: [SCOPES.solutionAdmin] }))).status).toBe(403);
  expect(await revision(h.pool)).toBe(start);
});

test('`recordParameters` (issue 24) is kept with its names in order, travels in the change, and a wrong one is a 400 at its path', async () => {
  const changed = await write({ recordParameters: { clear: ['user', 'doc'], hashed: true } }, 'gamma', h.bearer({ solutions: ['gamma'] }));
  expect(changed.status).toBe(200);
  expect(changed.body.settings).toEqual({ recordParameters: { clear: ['doc', 'user'], hashed: true } });
  expect((await outbox(h.pool)).at(-1)!.message).toMatchObject({ type: 'settings', solution: 'gamma', settings: { recordParameters: { clear: ['doc', 'user'], hashed: true } } });
  const same = await write({ recordParameters: { hashed: true, clear: ['doc', 'user'] } }, 'gamma', h.bearer({ solutions: ['gamma'] }));
  expect(same.body.changed).toBe(false);

  const wrong = await write({ recordParameters: { clear: [7] } }, 'gamma', h.bearer({ solutions: ['gamma'] }));
  expect(wrong.status).toBe(400);
  expect(wrong.body.errors[0].path).toBe('recordParameters.clear[0]');
});

test('the decision routes answer 503 on a pap without NATS, and check their input first', async () => {
  const bearer = h.bearer({ scopes: [SCOPES.solutionAdmin] });
  const search = await request(h.app).get('/ws/decisions?solution=acme').set('Authorization', bearer);
  expect(search.status).toBe(503);
  expect(search.body.code).toBe('service_unavailable');
  const badTime = await request(h.app).get('/ws/decisions?from=yesterday').set('Authorization', bearer);
  expect(badTime.status).toBe(400);
  expect(badTime.body.errors[0].path).toBe('from');
  expect((await request(h.app).get('/ws/decisions/nope').set('Authorization', bearer)).status).toBe(400);
  const foreign = await request(h.app).get('/ws/decisions?solution=other').set('Authorization', h.bearer({ scopes: [SCOPES.solutionAdmin], solutions: ['acme'] }));
  expect(foreign.status).toBe(403);
});
