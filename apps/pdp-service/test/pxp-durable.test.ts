import request from 'supertest';
import { freePort, waitFor } from '@custos/test-kit';
import { PgExecutionStore } from '../src/pxp/execution-store';
import { TestEndpoint } from './support/endpoints';
import { component, policy, startPdp, wireEvent } from './support/pdp';
import { usePdp } from './support/use-pdp';

/**
 * Durable executes (docs/api.md, "Executes"): stored before the answer, delivered at least once with an idempotency
 * key, kept as failed when their attempts are spent, retryable, and taken over from a replica that died.
 */
const A = (name: string) => `urn:action:acme:${name}`;
const P = (name: string) => `urn:policy:acme:${name}`;

/** Longer than any test: a call answered with this delay waits for releaseHeldCalls. */
const HELD_MS = 60_000;

/** Lets every call the endpoint holds (`delayMs`) answer now. */
function releaseHeldCalls(endpoint: TestEndpoint): void {
  // The endpoint keeps its pending delays to end them at stop(); the shared support code stays as it is.
  for (const delay of [...endpoint['delays']]) delay.resolve();
}

/** How many deliveries carried each idempotency key (at least once: a key may come more than once, never a new one). */
function deliveries(endpoint: TestEndpoint): Map<string | undefined, number> {
  const counted = new Map<string | undefined, number>();
  for (const call of endpoint.calls) counted.set(call.idempotencyKey, (counted.get(call.idempotencyKey) ?? 0) + 1);
  return counted;
}

interface Row {
  id: string;
  state: string;
  attempts: number;
  action: string;
}

describe('durable PXP executes', () => {
  // The attempt timeout outlasts any test: a held PXP answers when the test releases it, not when an attempt gives up.
  const pdp = usePdp({ pxpTimeoutMs: HELD_MS, pxpBackoffMs: 10, pxpAttempts: 2, breakerFailures: 100, pxpLeaseMs: 500, pxpPollMs: 50, scopes: ['event:decide', 'component:read', 'component:write'] });
  let pxp: TestEndpoint;

  beforeAll(async () => {
    pxp = await new TestEndpoint(true).start();
    await pdp.register(component('PXP', 'mail', pxp.url, [A('notify'), A('audit')]));
    await pdp.deploy(
      P('notify'),
      policy(
        P('notify'),
        `<mechanism event="${A('share')}">
          <if><constant:true/><then><allow/>
            <execute action="${A('notify')}"><parameter:string name="doc"><event:string eventParameter="doc" default=""/></parameter:string></execute>
            <execute action="${A('audit')}"><parameter:string name="doc"><event:string eventParameter="doc" default=""/></parameter:string></execute>
          </then></if>
        </mechanism>
        <mechanism event="${A('orphan')}">
          <if><constant:true/><then><allow/><execute action="${A('nobody')}"/></then></if>
        </mechanism>`,
      ),
    );
  });

  afterAll(async () => {
    await pxp?.stop();
  });

  beforeEach(() => {
    pxp.calls.length = 0;
    pxp.behaviour = () => ({ answer: true });
    pdp.targets.close();
  });

  const decide = async (action: string, doc: string) => {
    const response = await request(pdp.server).post('/event').set('Authorization', `Bearer ${pdp.token}`).send(wireEvent(action, { doc }));
    expect(response.status).toBe(200);
    return response.body.id.identifier as string;
  };
  const rows = async (decisionId: string) =>
    (await pdp.pool.query<Row>('SELECT id, state, attempts, action FROM pdp.executions WHERE decision_id = $1 ORDER BY action', [decisionId])).rows;

  it('stores every execute of a decision before answering and delivers it with its id as idempotency key', async () => {
    // The PXP holds its answer: whatever the table shows at once was written before the decision was answered.
    pxp.behaviour = () => ({ answer: true, delayMs: HELD_MS });
    const decisionId = await decide('share', 'd1');
    const stored = await rows(decisionId);
    expect(stored.map((row) => [row.action, row.state])).toEqual([
      [A('audit'), 'pending'],
      [A('notify'), 'pending'],
    ]);
    await waitFor(() => pxp.calls.length >= 2, { what: 'both executes delivered' });
    pxp.behaviour = () => ({ answer: true });
    releaseHeldCalls(pxp);
    await waitFor(async () => (await rows(decisionId)).every((row) => row.state === 'done'), { what: 'both executes done' });
    // At least once (docs/api.md): each stored execute came with its own id as the key, and no other key came.
    expect([...deliveries(pxp).keys()].sort()).toEqual(stored.map((row) => row.id).sort());
    // The body is exactly the wire format of api.md §6: the key travels in the header only.
    expect(pxp.calls.find((call) => call.body.id.urn === A('notify'))?.body).toEqual({
      id: { urn: A('notify') },
      parameters: [{ name: 'doc', value: { value: 'd1', type: 'java.lang.String', isComplex: false } }],
    });
  });

  it('keeps an execute whose attempts are spent as failed, lists it, counts it and retries it on demand', async () => {
    pxp.behaviour = () => ({ status: 503 });
    const decisionId = await decide('share', 'd2');
    await waitFor(async () => (await rows(decisionId)).every((row) => row.state === 'failed'), { what: 'both executes failed' });
    expect((await rows(decisionId)).map((row) => row.attempts)).toEqual([2, 2]);

    const listed = await request(pdp.server).get('/executions?state=failed').set('Authorization', `Bearer ${pdp.token}`);
    expect(listed.status).toBe(200);
    const mine = (listed.body.executions as Array<{ id: string; decisionId: string; state: string; lastError: string }>).filter(
      (e) => e.decisionId === decisionId,
    );
    expect(mine).toHaveLength(2);
    expect(mine[0]).toMatchObject({ state: 'failed', lastError: 'answered with status 503' });
    await waitFor(async () => /pxp_executions_stored\{[^}]*state="failed"[^}]*\} [1-9]/.test(await pdp.metrics.registry.metrics()), {
      what: 'the failed gauge',
    });

    // Both attempts of each, every one with the execute's own key (a redelivery may add more, never other keys).
    const attempted = deliveries(pxp);
    expect([...attempted.keys()].sort()).toEqual(mine.map((e) => e.id).sort());
    expect([...attempted.values()].every((count) => count >= 2)).toBe(true);
    pxp.calls.length = 0;
    pxp.behaviour = () => ({ answer: true });
    const retried = await request(pdp.server).post(`/executions/${mine[0]?.id ?? ''}/retry`).set('Authorization', `Bearer ${pdp.token}`);
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: mine[0]?.id, state: 'pending', attempts: 0 });
    await waitFor(async () => (await rows(decisionId)).filter((row) => row.state === 'done').length === 1, { what: 'the retried execute done' });
    expect([...deliveries(pxp).keys()]).toEqual([mine[0]?.id]);

    // Done now: a second retry conflicts.
    const again = await request(pdp.server).post(`/executions/${mine[0]?.id ?? ''}/retry`).set('Authorization', `Bearer ${pdp.token}`);
    expect(again.status).toBe(409);
  });

  it('keeps an execute no PXP is registered for as failed', async () => {
    const decisionId = await decide('orphan', 'd3');
    await waitFor(async () => (await rows(decisionId))[0]?.state === 'failed', { what: 'the orphan failed' });
    const listed = await request(pdp.server).get('/executions').set('Authorization', `Bearer ${pdp.token}`);
    expect((listed.body.executions as Array<{ decisionId: string; lastError: string }>).find((e) => e.decisionId === decisionId)?.lastError).toBe(
      `no pxp is registered for \`${A('nobody')}\``,
    );
  });

  it('refuses bad queries, bad ids, missing scopes and foreign solutions', async () => {
    const get = (path: string, bearer = pdp.token) => request(pdp.server).get(path).set('Authorization', `Bearer ${bearer}`);
    const bad = await get('/executions?state=lost');
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ path: 'query.state' });
    expect((await get('/executions?limit=0')).status).toBe(400);
    expect((await get('/executions?limit=5000')).status).toBe(400);
    const deciderOnly = pdp.authority.mint({ scopes: ['event:decide'], solutions: ['acme'] });
    expect((await get('/executions', deciderOnly)).status).toBe(403);
    expect((await request(pdp.server).get('/executions')).status).toBe(401);

    const retry = (id: string, bearer = pdp.token) => request(pdp.server).post(`/executions/${id}/retry`).set('Authorization', `Bearer ${bearer}`);
    expect((await retry('not-a-uuid')).status).toBe(400);
    expect((await retry('0190a5b0-0000-7000-8000-000000000000')).status).toBe(404);
    const readOnly = pdp.authority.mint({ scopes: ['component:read'], solutions: ['acme'] });
    expect((await retry('0190a5b0-0000-7000-8000-000000000000', readOnly)).status).toBe(403);

    pxp.behaviour = () => ({ status: 500 });
    const decisionId = await decide('share', 'd4');
    await waitFor(async () => (await rows(decisionId)).every((row) => row.state === 'failed'), { what: 'failed executes' });
    const failedId = (await rows(decisionId))[0]?.id ?? '';
    const foreign = pdp.authority.mint({ scopes: ['component:read', 'component:write'], solutions: ['other'] });
    expect((await retry(failedId, foreign)).status).toBe(404);
    const foreignList = await get('/executions?state=failed', foreign);
    expect(foreignList.body.executions).toEqual([]);
  });

  it('delivers executes a dead replica stored and claimed, once its claim expired', async () => {
    // What a replica that crashed right after answering leaves behind: stored rows claimed by it for 200 ms.
    const dead = new PgExecutionStore(pdp.pool, 'dead-replica');
    const id = '0190a5b0-1111-7000-8000-000000000001';
    await dead.insert(
      [{ id, decisionId: 'urn:decision:dead', timerId: null, policyId: P('notify'), action: A('notify'), solution: 'acme', parameters: [] }],
      3,
      Date.now(),
      200,
    );
    await waitFor(() => pxp.calls.some((call) => call.idempotencyKey === id), { what: 'the orphaned execute delivered' });
    await waitFor(async () => (await pdp.pool.query<Row>('SELECT state FROM pdp.executions WHERE id = $1', [id])).rows[0]?.state === 'done', {
      what: 'the orphaned execute done',
    });
    const claimedBy = await pdp.pool.query<{ claimed_by: string }>('SELECT claimed_by FROM pdp.executions WHERE id = $1', [id]);
    expect(claimedBy.rows[0]?.claimed_by).toBe('pdp-test');
    // Delivered under its stored id: a redelivery (at least once) would carry the same key, never a new one.
    expect(pxp.calls.filter((call) => call.body.id.urn === A('notify')).every((call) => call.idempotencyKey === id)).toBe(true);
  });

  it('leaves executes claimed by a live replica alone', async () => {
    const live = new PgExecutionStore(pdp.pool, 'live-replica');
    const id = '0190a5b0-2222-7000-8000-000000000002';
    await live.insert(
      [{ id, decisionId: 'urn:decision:live', timerId: null, policyId: P('notify'), action: A('notify'), solution: 'acme', parameters: [] }],
      3,
      Date.now(),
      60_000,
    );
    // Several polls later (50 ms apart), nobody else took it.
    const polled = await pdp.pxp.poll();
    expect(polled).toBe(0);
    const row = await pdp.pool.query<{ claimed_by: string; state: string }>('SELECT claimed_by, state FROM pdp.executions WHERE id = $1', [id]);
    expect(row.rows[0]).toEqual({ claimed_by: 'live-replica', state: 'pending' });
    expect(pxp.calls.some((call) => call.idempotencyKey === id)).toBe(false);
  });

  it('answers and delivers from memory when the executes cannot be stored (PostgreSQL unreachable)', async () => {
    const nowhere = await freePort();
    const cut = await startPdp({ authority: pdp.authority, historyUrl: `postgres://postgres@127.0.0.1:${nowhere}/none`, historyTimeoutMs: 500, pxpBackoffMs: 10, pxpPollMs: 50 });
    try {
      await cut.register(component('PXP', 'mail', pxp.url, [A('notify'), A('audit')]));
      await cut.deploy(P('notify'), policy(P('notify'), `<mechanism event="${A('share')}"><if><constant:true/><then><allow/><execute action="${A('notify')}"><parameter:string name="doc" value="kept"/></execute></then></if></mechanism>`));
      const response = await request(cut.server).post('/event').set('Authorization', `Bearer ${pdp.token}`).send(wireEvent('share', { doc: 'x' }));
      expect(response.status).toBe(200);
      expect(response.body.eventAllowed).toBe(true);
      const delivered = await waitFor(() => pxp.calls.find((call) => call.body.parameters[0]?.value.value === 'kept'), { what: 'the execute from memory' });
      // Never stored, so it has no id to carry.
      expect(delivered.idempotencyKey).toBeUndefined();
      expect(await cut.metrics.registry.getSingleMetricAsString('pxp_executions_total')).toMatch(/outcome="unpersisted"[^}]*\} 1/);
    } finally {
      await cut.stop();
    }
  });
});
