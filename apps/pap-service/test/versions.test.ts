import request from 'supertest';
import { applyPatch } from 'diff';
import { SCOPES } from '@custos/contracts';
import { deployedPolicy, dump, outbox, policyXml, revision, startHarness, timerXml, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const as = (sub: string) => h.bearer({ sub });
const send = (method: 'get' | 'post' | 'put', path: string, bearer = h.bearer()) => request(h.app)[method](path).set('Authorization', bearer);
const add = (kind: 'policy' | 'timer', xml: string, bearer = h.bearer(), requestId?: string) => {
  const req = send('post', `/ws/${kind}`, bearer).type('application/xml');
  return (requestId === undefined ? req : req.set('X-Request-Id', requestId)).send(xml);
};
const put = (kind: 'policy' | 'timer', id: string, xml: string, bearer = h.bearer(), requestId?: string) => {
  const req = send('put', `/ws/${kind}/${id}`, bearer).type('application/xml');
  return (requestId === undefined ? req : req.set('X-Request-Id', requestId)).send(xml);
};
const versions = (kind: 'policy' | 'timer', id: string, bearer = h.bearer()) => send('get', `/ws/${kind}/${id}/versions`, bearer);
const restore = (kind: 'policy' | 'timer', id: string, n: number | string, query = '', bearer = h.bearer()) =>
  send('post', `/ws/${kind}/${id}/versions/${n}/restore${query}`, bearer);
const currentXml = async (kind: 'policy' | 'timer', id: string) => (await send('get', `/ws/${kind}/${id}`).accept('application/xml')).text;

/** Everything pap stores, histories included, to prove that a refused request changed nothing. */
async function everything(): Promise<unknown> {
  const [rest, policyVersions, timerVersions] = await Promise.all([
    dump(h.pool),
    h.pool.query('SELECT * FROM pap.policy_versions ORDER BY id, number'),
    h.pool.query('SELECT * FROM pap.timer_versions ORDER BY id, number'),
  ]);
  return { rest, policyVersions: policyVersions.rows, timerVersions: timerVersions.rows };
}

async function expectRefused(call: () => Promise<request.Response>, status: number, code: string): Promise<request.Response> {
  const before = await everything();
  const res = await call();
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body.code).toBe(code);
  expect(await everything()).toEqual(before);
  return res;
}

const P = 'urn:policy:acme:history';
const v1 = policyXml(P, { name: 'one' });
const v2 = policyXml(P, { name: 'two', decision: 'allow' });
const v3 = policyXml(P, { name: 'three' });

describe('a policy added and replaced twice', () => {
  beforeAll(async () => {
    expect((await add('policy', v1, as('alice'), 'req-add')).status).toBe(201);
    expect((await put('policy', P, v2, as('bob'), 'req-put-1')).status).toBe(200);
    expect((await put('policy', P, v3, as('carol'), 'req-put-2')).status).toBe(200);
  });

  test('lists three versions with who, when and the request, the last one current', async () => {
    const res = await versions('policy', P);
    expect(res.status).toBe(200);
    expect(res.body.id).toEqual({ identifier: P });
    const list = res.body.versions as Array<Record<string, unknown>>;
    expect(list.map(({ createdAt: _, ...rest }) => rest)).toEqual([
      { number: 1, clientId: 'alice', requestId: 'req-add', current: false, deployed: false },
      { number: 2, clientId: 'bob', requestId: 'req-put-1', current: false, deployed: false },
      { number: 3, clientId: 'carol', requestId: 'req-put-2', current: true, deployed: false },
    ]);
    const times = list.map((version) => Date.parse(version.createdAt as string));
    expect(times.every((time) => Number.isFinite(time))).toBe(true);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
  });

  test('shows the text of version 1, as JSON and as XML', async () => {
    const json = await send('get', `/ws/policy/${P}/versions/1`);
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ number: 1, clientId: 'alice', requestId: 'req-add', xml: v1 });
    const xml = await send('get', `/ws/policy/${P}/versions/1`).accept('application/xml');
    expect(xml.status).toBe(200);
    expect(xml.headers['content-type']).toMatch(/^application\/xml/);
    expect(xml.text).toBe(v1);
  });

  test('diffs version 1 against version 3 as a unified diff', async () => {
    const res = await send('get', `/ws/policy/${P}/diff?from=1&to=3`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const [line1, line2, line3, line4, line5] = v1.split('\n');
    // Only line 2 (the root element with the name) differs: one hunk of it with three lines of context after.
    expect(line2).toContain('name="one"');
    expect(res.text).toBe(
      [
        '===================================================================',
        `--- ${P}@v1`,
        `+++ ${P}@v3`,
        '@@ -1,5 +1,5 @@',
        ` ${line1}`,
        `-${line2}`,
        `+${line2!.replace('name="one"', 'name="three"')}`,
        ` ${line3}`,
        ` ${line4}`,
        ` ${line5}`,
        '',
      ].join('\n'),
    );
  });

  test('diffs against the current version when `to` is left out; a patch of the diff turns one text into the other', async () => {
    const res = await send('get', `/ws/policy/${P}/diff?from=2`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`+++ ${P}@v3`);
    expect(applyPatch(v2, res.text)).toBe(v3);
    const same = await send('get', `/ws/policy/${P}/diff?from=2&to=2`);
    expect(same.text).not.toContain('@@');
  });

  test('restore without deploy: version 1 becomes current as version 4, no revision taken', async () => {
    const revisionBefore = await revision(h.pool);
    const rowsBefore = (await outbox(h.pool)).length;
    const res = await restore('policy', P, 1, '', as('dave'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: 4, deployed: false, revision: revisionBefore, changed: false });
    expect(res.headers['policy-revision']).toBeUndefined();
    expect(await currentXml('policy', P)).toBe(v1);
    expect((await send('get', `/ws/policy/${P}`)).body.name).toBe('one');
    const list = (await versions('policy', P)).body.versions as Array<{ number: number; clientId: string; current: boolean }>;
    expect(list.map((version) => version.number)).toEqual([1, 2, 3, 4]);
    expect(list[3]).toMatchObject({ clientId: 'dave', current: true });
    expect((await send('get', `/ws/policy/${P}/versions/3`)).body.xml).toBe(v3);
    expect((await outbox(h.pool)).length).toBe(rowsBefore);
  });

  test('restore with deploy: one revision, one outbox row deploying the old text, and the version marked deployed', async () => {
    const revisionBefore = await revision(h.pool);
    const rowsBefore = (await outbox(h.pool)).length;
    const res = await restore('policy', P, 2, '?deploy=true');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ version: 5, deployed: true, revision: revisionBefore + 1, changed: true });
    expect(res.headers['policy-revision']).toBe(String(revisionBefore + 1));
    const rows = await outbox(h.pool);
    expect(rows).toHaveLength(rowsBefore + 1);
    expect(rows.at(-1)!.message).toEqual({ revision: revisionBefore + 1, type: 'deploy', policy: deployedPolicy(P, v2, revisionBefore + 1) });
    const list = (await versions('policy', P)).body.versions as Array<{ number: number; current: boolean; deployed: boolean }>;
    expect(list.filter((version) => version.deployed).map((version) => version.number)).toEqual([5]);
    expect((await send('get', `/ws/policy/${P}/status`)).body).toBe(true);
  });

  test('restore of a deployed policy re-deploys it in one revision, still the same deployment', async () => {
    const deployedAt = (await outbox(h.pool)).at(-1)!.revision;
    const revisionBefore = await revision(h.pool);
    const res = await restore('policy', P, 3);
    expect(res.body).toEqual({ version: 6, deployed: true, revision: revisionBefore + 1, changed: true });
    const rows = await outbox(h.pool);
    expect(rows.at(-1)!.message).toEqual({ revision: revisionBefore + 1, type: 'deploy', policy: deployedPolicy(P, v3, deployedAt) });
    expect(await currentXml('policy', P)).toBe(v3);
  });
});

describe('refused requests change nothing', () => {
  const G = 'urn:policy:globex:hidden';

  beforeAll(async () => {
    expect((await add('policy', policyXml(G), h.bearer({ solutions: ['globex'] }))).status).toBe(201);
  });

  test.each([
    ['versions', (id: string) => versions('policy', id)],
    ['a version', (id: string) => send('get', `/ws/policy/${id}/versions/1`)],
    ['a diff', (id: string) => send('get', `/ws/policy/${id}/diff?from=1`)],
    ['a restore', (id: string) => restore('policy', id, 1, '?deploy=true')],
  ])('%s of a foreign solution is 403, whether or not the policy exists', async (_what, call) => {
    const existing = await expectRefused(() => call(G), 403, 'insufficient_scope');
    const missing = await expectRefused(() => call('urn:policy:globex:nothing'), 403, 'insufficient_scope');
    expect(missing.body.detail).toBe(existing.body.detail);
  });

  test('a restore needs policy:write', async () => {
    await expectRefused(() => restore('policy', P, 1, '', h.bearer({ scopes: [SCOPES.policyRead] })), 403, 'insufficient_scope');
  });

  test('an unknown policy or version is 404', async () => {
    await expectRefused(() => versions('policy', 'urn:policy:acme:nothing'), 404, 'not_found');
    await expectRefused(() => send('get', `/ws/policy/${P}/versions/99`), 404, 'not_found');
    await expectRefused(() => send('get', `/ws/policy/${P}/diff?from=1&to=99`), 404, 'not_found');
    await expectRefused(() => restore('policy', P, 99, '?deploy=true'), 404, 'not_found');
    await expectRefused(() => restore('policy', 'urn:policy:acme:nothing', 1), 404, 'not_found');
  });

  test('a bad id, version number or flag is 400', async () => {
    await expectRefused(() => versions('policy', 'not-a-urn'), 400, 'invalid_id');
    await expectRefused(() => send('get', `/ws/policy/${P}/versions/0`), 400, 'invalid_request');
    await expectRefused(() => send('get', `/ws/policy/${P}/versions/1e3`), 400, 'invalid_request');
    await expectRefused(() => send('get', `/ws/policy/${P}/diff`), 400, 'invalid_request');
    await expectRefused(() => send('get', `/ws/policy/${P}/diff?from=one`), 400, 'invalid_request');
    await expectRefused(() => restore('policy', P, 'x'), 400, 'invalid_request');
    await expectRefused(() => restore('policy', P, 1, '?deploy=yes'), 400, 'invalid_request');
  });

  test('a version whose text the checks now refuse is 400 invalid_policy', async () => {
    const T = 'urn:timer:acme:stopped';
    expect((await add('timer', timerXml(T))).status).toBe(201);
    // A text stored under older rules: its cron fired last in 2020, which today's checks refuse.
    await h.pool.query('INSERT INTO pap.timer_versions (id, number, xml) VALUES ($1, 2, $2)', [T, timerXml(T, '0 0 2 1 1 ? 2020')]);
    const res = await expectRefused(() => restore('timer', T, 2, '?deploy=true'), 400, 'invalid_policy');
    expect(res.body.errors.length).toBeGreaterThan(0);
  });
});

test('timers keep versions too, and a restore deploys one', async () => {
  const T = 'urn:timer:acme:versioned';
  const first = timerXml(T, '0 0 2 * * ?');
  expect((await add('timer', first, as('erin'))).status).toBe(201);
  expect((await put('timer', T, timerXml(T, '0 30 3 * * ?'), as('frank'))).status).toBe(200);
  const before = await revision(h.pool);
  const res = await restore('timer', T, 1, '?deploy=true');
  expect(res.body).toEqual({ version: 3, deployed: true, revision: before + 1, changed: true });
  expect((await outbox(h.pool)).at(-1)!.message).toEqual({ revision: before + 1, type: 'deploy', policy: { id: T, xml: first } });
  const list = (await versions('timer', T)).body.versions as Array<{ number: number; clientId: string; deployed: boolean }>;
  expect(list.map(({ number, clientId, deployed }) => ({ number, clientId, deployed }))).toEqual([
    { number: 1, clientId: 'erin', deployed: false },
    { number: 2, clientId: 'frank', deployed: false },
    { number: 3, clientId: 'test-client', deployed: true },
  ]);
  expect((await send('get', `/ws/timer/${T}`)).body.cron).toBe('0 0 2 * * ?');
});

test('a change set stores versions by its caller and request', async () => {
  const A = 'urn:policy:acme:set-versioned';
  const res = await send('post', '/ws/changes', as('grace'))
    .set('X-Request-Id', 'req-set')
    .send({ changes: [{ op: 'add', kind: 'policy', xml: policyXml(A) }, { op: 'replace', kind: 'policy', xml: policyXml(A, { name: 'b' }) }] });
  expect(res.status).toBe(200);
  const list = (await versions('policy', A)).body.versions as Array<Record<string, unknown>>;
  expect(list.map(({ number, clientId, requestId }) => ({ number, clientId, requestId }))).toEqual([
    { number: 1, clientId: 'grace', requestId: 'req-set' },
    { number: 2, clientId: 'grace', requestId: 'req-set' },
  ]);
});

test('removing a policy removes its history; added again, it starts at version 1', async () => {
  const R = 'urn:policy:acme:removed';
  expect((await add('policy', policyXml(R))).status).toBe(201);
  expect((await put('policy', R, policyXml(R, { name: 'b' }))).status).toBe(200);
  expect((await request(h.app).delete(`/ws/policy/${R}`).set('Authorization', h.bearer())).status).toBe(200);
  expect((await versions('policy', R)).status).toBe(404);
  expect((await add('policy', policyXml(R, { name: 'again' }))).status).toBe(201);
  const list = (await versions('policy', R)).body.versions as Array<{ number: number }>;
  expect(list.map((version) => version.number)).toEqual([1]);
});

test('texts too different for a minimal diff get one hunk replacing every line, which still patches', async () => {
  const W = 'urn:policy:acme:rewritten';
  // 1 100 comment lines replaced by 1 100 others: 2 200 edited lines, beyond the minimal diff's bound.
  const padded = (tag: string) => policyXml(W).replace('<mechanism', `${Array.from({ length: 1100 }, (_, i) => `<!-- ${tag} ${i} -->`).join('\n')}\n  <mechanism`);
  expect((await add('policy', padded('a'))).status).toBe(201);
  expect((await put('policy', W, padded('b'))).status).toBe(200);
  const res = await send('get', `/ws/policy/${W}/diff?from=1&to=2`);
  expect(res.status).toBe(200);
  const lines = padded('a').split('\n').length - 1;
  expect(res.text).toContain(`@@ -1,${lines} +1,${lines} @@`);
  expect(res.text.split('\n').filter((line) => line.startsWith(' '))).toEqual([]);
  expect(applyPatch(padded('a'), res.text)).toBe(padded('b'));
});
