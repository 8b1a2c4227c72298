import request from 'supertest';
import { outbox, policyXml, revision, startHarness, type Harness, type OutboxEntry } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const ids = Array.from({ length: 30 }, (_, i) => `urn:policy:acme:p${String(i).padStart(2, '0')}`);
const post = (path: string) => request(h.app).post(path).set('Authorization', h.bearer());

/** The deployed set that replaying the outbox gives. */
function replay(entries: OutboxEntry[]): string[] {
  const set = new Set<string>();
  for (const { message } of entries) {
    if (message.type === 'deploy') set.add(message.policy!.id);
    else if (message.type === 'revoke') set.delete(message.policyId!);
  }
  return [...set].sort();
}

async function deployedInDatabase(): Promise<string[]> {
  const rows = await h.pool.query<{ id: string }>('SELECT id FROM pap.policies WHERE deployed ORDER BY id COLLATE "C"');
  return rows.rows.map((r) => r.id);
}

function expectGapFree(entries: OutboxEntry[], last: number): void {
  expect(entries.map((e) => e.revision)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
  for (const entry of entries) expect(entry.message.revision).toBe(entry.revision);
}

test('concurrent deploys get revisions 1..n, each exactly once', async () => {
  for (const id of ids) expect((await request(h.app).post('/ws/policy').set('Authorization', h.bearer()).type('application/xml').send(policyXml(id))).status).toBe(201);
  // Every policy deployed twice at once: 30 changes, 30 idempotent answers.
  const responses = await Promise.all([...ids, ...ids].map((id) => post(`/ws/policy/${id}/deploy`)));
  for (const res of responses) {
    expect(res.status).toBe(200);
    expect(res.body).toBe(true);
  }
  const headers = responses.map((res) => Number(res.headers['policy-revision']));
  expect(new Set(headers)).toEqual(new Set(Array.from({ length: 30 }, (_, i) => i + 1)));
  expect(await revision(h.pool)).toBe(30);
  const entries = await outbox(h.pool);
  expectGapFree(entries, 30);
  expect(replay(entries)).toEqual(ids);
});

test('concurrent revokes, removes and re-deploys stay gap-free and replay to the stored set', async () => {
  const calls = [
    ...ids.slice(0, 10).map((id) => request(h.app).get(`/ws/policy/${id}/revoke`).set('Authorization', h.bearer())),
    ...ids.slice(0, 10).map((id) => post(`/ws/policy/${id}/revoke`)),
    ...ids.slice(10, 20).map((id) => request(h.app).delete(`/ws/policy/${id}`).set('Authorization', h.bearer())),
    ...ids.slice(15, 25).map((id) => post(`/ws/policy/${id}/deploy`)),
    ...ids.slice(20, 30).map((id) =>
      request(h.app).put(`/ws/policy/${id}`).set('Authorization', h.bearer()).type('application/xml').send(policyXml(id, { name: 'v2' })),
    ),
  ];
  const responses = await Promise.all(calls);
  for (const res of responses) expect(res.status).toBe(200);
  // Each of p00..p09 was revoked twice at once: exactly one of the two calls did it.
  expect(responses.slice(0, 20).filter((r) => r.body === true)).toHaveLength(10);
  const last = await revision(h.pool);
  const entries = await outbox(h.pool);
  expectGapFree(entries, last);
  expect(replay(entries)).toEqual(await deployedInDatabase());
  // The revisions that callers were told are revisions that exist.
  for (const res of responses) {
    const told = Number(res.headers['policy-revision'] ?? NaN);
    if (!Number.isNaN(told)) expect(told).toBeLessThanOrEqual(last);
  }
});

test('a change that fails half-way stores nothing and gives its revision back', async () => {
  const id = ids[25]!;
  // Revoke it first, so deploying is a real change.
  await post(`/ws/policy/${id}/revoke`);
  const before = await revision(h.pool);
  const rowsBefore = (await outbox(h.pool)).length;
  await h.pool.query(`
    CREATE FUNCTION pap.fail_outbox() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'outbox down'; END $$;
    CREATE TRIGGER fail_outbox BEFORE INSERT ON pap.outbox FOR EACH ROW EXECUTE FUNCTION pap.fail_outbox();
  `);
  try {
    const res = await post(`/ws/policy/${id}/deploy`);
    expect(res.status).toBe(500);
    expect(res.body.code).toBe('internal_error');
    expect(JSON.stringify(res.body)).not.toContain('outbox down');
    const status = await request(h.app).get(`/ws/policy/${id}/status`).set('Authorization', h.bearer());
    expect(status.body).toBe(false);
    expect(await revision(h.pool)).toBe(before);
    expect(await outbox(h.pool)).toHaveLength(rowsBefore);
  } finally {
    await h.pool.query('DROP TRIGGER fail_outbox ON pap.outbox; DROP FUNCTION pap.fail_outbox()');
  }
  const res = await post(`/ws/policy/${id}/deploy`);
  expect(res.headers['policy-revision']).toBe(String(before + 1));
  expectGapFree(await outbox(h.pool), before + 1);
});
