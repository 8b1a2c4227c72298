import { readFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { AUTHZEN_PATHS, MAX_BATCH_ITEMS } from '@custos/contracts';
import { policy } from './support/pdp';
import { A, P, alice, decisionsOf, DECISION_ID, useAuthZenPdp } from './support/authzen-policies';
import { usePdp } from './support/use-pdp';

/** The AuthZEN Authorization API 1.0 endpoints on real PostgreSQL and NATS, beyond the specification's examples. */
describe('AuthZEN Authorization API', () => {
  const { pdp, evaluation, evaluations } = useAuthZenPdp();

  it('answers a request without evaluations, or with an empty array, like a single evaluation', async () => {
    for (const extra of [{}, { evaluations: [] }]) {
      const response = await evaluations({ subject: alice, action: { name: 'read' }, resource: { type: 'document', id: '1' }, ...extra });
      expect(response.status).toBe(200);
      expect(response.body.decision).toBe(true);
      expect(response.body.evaluations).toBeUndefined();
    }
  });

  it('puts modifiers and the delay in the context; a caller that cannot apply modifiers gets false', async () => {
    const ask = { subject: alice, action: { name: 'view' }, resource: { type: 'employee', id: 'e1', properties: { salary: 5000 } } };
    const applied = await evaluation(ask);
    expect(applied.body.decision).toBe(true);
    expect(applied.body.context.delay_ms).toBe(1000);
    expect(applied.body.context.modifiers).toEqual([{ name: 'resource', expression: '$.properties.salary', engine: [{ method: 'delete', parameters: [] }] }]);

    const refused = await evaluation({ ...ask, options: { custos_modifiers_supported: false } });
    // The delay is still to be acted on, so the context stays, saying why.
    expect(refused.body).toEqual({ decision: false, context: { reason: 'modifiers_not_supported', modifiers: applied.body.context.modifiers, delay_ms: 1000 } });
    const batch = await evaluations({ subject: alice, options: { custos_modifiers_supported: false }, evaluations: [ask, { action: { name: 'read' }, resource: { type: 'document', id: '1' } }] });
    expect(decisionsOf(batch.body)).toEqual([false, true]);
    // deny_on_first_deny counts the refusal as a deny.
    const stopped = await evaluations({ subject: alice, options: { custos_modifiers_supported: false, evaluations_semantic: 'deny_on_first_deny' }, evaluations: [ask, ask] });
    expect(decisionsOf(stopped.body)).toEqual([false]);
  });

  describe('answers as peers do', () => {
    const unknown = { subject: alice, action: { name: 'no_policy_mentions_this' }, resource: { type: 'document', id: '1' } };

    it('denies an action no mechanism reacts to, although POST /event allows it by DEFAULT_DECISION', async () => {
      const answered = await evaluation(unknown).set('X-Request-ID', 'unknown-action');
      expect(answered.status).toBe(200);
      expect(answered.body).toEqual({ decision: false });
      expect(answered.headers['custos-decision-id']).toMatch(DECISION_ID);
      // The decision log says what was answered, and that no mechanism decided.
      const logged = pdp.log.lines.filter((line) => line.log === 'decision' && line.requestId === 'unknown-action');
      expect(logged).toEqual([expect.objectContaining({ decisionId: answered.headers['custos-decision-id'], allowed: false, decided: false })]);
      // /event keeps its own default (allow here) and its answer shape.
      const event = await pdp.post('/event', { actionId: { urn: A('no_policy_mentions_this') }, timestamp: 0, parameters: [] });
      expect(event.body.eventAllowed).toBe(true);
      expect(event.headers['custos-decision-id']).toBeUndefined();
      // A mechanism that reacts without deciding (its `if` false, no `else`) is no reaction either.
      const undecided = await evaluation({ subject: { type: 'user', id: 'mallory' }, action: { name: 'can_edit' }, resource: { type: 'document', id: '1' } });
      expect(undecided.body).toEqual({ decision: false });
    });

    it('answers the bare decision without obligations, the ids in order in Custos-Decision-Id', async () => {
      const response = await evaluations({
        subject: alice,
        action: { name: 'read' },
        evaluations: [{ resource: { type: 'document', id: '1' } }, { resource: { type: 'document', id: '2' } }, { action: { name: 'nothing_here' } , resource: { type: 'document', id: '3' } }],
      }).set('X-Request-ID', 'ids-in-order');
      expect(response.body).toEqual({ evaluations: [{ decision: true }, { decision: false }, { decision: false }] });
      const ids = String(response.headers['custos-decision-id']).split(', ');
      expect(ids).toHaveLength(3);
      for (const id of ids) expect(id).toMatch(DECISION_ID);
      // They are the decision log's ids, in the order of the evaluations.
      const logged = pdp.log.lines.filter((line) => line.log === 'decision' && line.requestId === 'ids-in-order').map((line) => line.decisionId);
      expect(logged).toEqual(ids);
    });

    it('gives the whole context when options.custos_context asks for it', async () => {
      const known = await evaluation({ subject: alice, action: { name: 'read' }, resource: { type: 'document', id: '1' }, options: { custos_context: true } });
      expect(known.body).toEqual({
        decision: true,
        context: { decision_id: known.headers['custos-decision-id'], policy_revision: Number(known.headers['policy-revision']), modifiers: [], delay_ms: 0 },
      });
      const none = await evaluation({ ...unknown, options: { custos_context: true } });
      expect(none.body).toMatchObject({ decision: false, context: { reason: 'no_mechanism', modifiers: [], delay_ms: 0 } });
    });

    it('keeps the context for a delay, also on a denial', async () => {
      const response = await evaluation({ subject: alice, action: { name: 'throttled' }, resource: { type: 'api', id: 'search' } });
      expect(response.body).toEqual({ decision: false, context: { modifiers: [], delay_ms: 2000 } });
    });

    it('refuses, and reports, a modifier aimed at a parameter the evaluation does not have', async () => {
      const response = await evaluation({ subject: alice, action: { name: 'export' }, resource: { type: 'document', id: '1' } });
      expect(response.body).toEqual({
        decision: false,
        context: {
          modifiers: [{ name: 'document', expression: '$.secret', engine: [{ method: 'delete', parameters: [] }] }],
          delay_ms: 0,
          reason: 'modifier_target_missing',
          unmatched_parameters: ['document'],
        },
      });
    });
  });

  it('decides history-using evaluations in order: a limit of 2 per subject allows exactly the first 2', async () => {
    const response = await evaluations({
      action: { name: 'download' },
      resource: { type: 'file', id: 'f' },
      evaluations: ['bob', 'bob', 'carol', 'bob', 'carol', 'carol'].map((id) => ({ subject: { type: 'user', id } })),
    });
    expect(decisionsOf(response.body)).toEqual([true, true, true, false, true, false]);
  });

  it('takes a whole action URN, refuses a bare name for a pdp.token of several solutions, and a foreign solution with 403', async () => {
    const both = pdp.authority.mint({ scopes: ['event:decide'], solutions: ['acme', 'globex'] });
    const viaUrn = await pdp.post(AUTHZEN_PATHS.evaluation, { subject: alice, action: { name: A('read') }, resource: { type: 'document', id: '1' } }, both);
    expect(viaUrn.body.decision).toBe(true);
    const bare = await pdp.post(AUTHZEN_PATHS.evaluation, { subject: alice, action: { name: 'read' }, resource: { type: 'document', id: '1' } }, both);
    expect(bare.status).toBe(400);
    expect(bare.body.errors).toEqual([{ path: 'action.name', message: expect.stringContaining('urn:action:<solution>:read') }]);
    const foreign = await evaluations({ subject: alice, resource: { type: 'document', id: '1' }, evaluations: [{ action: { name: 'read' } }, { action: { name: 'urn:action:globex:read' } }] });
    expect(foreign.status).toBe(403);
    expect(foreign.headers['www-authenticate']).toMatch(/insufficient_scope/);
  });

  it('answers bad requests with 400, 401, 403 and 413 problems, deciding nothing', async () => {
    const lines = () => pdp.log.lines.filter((line) => line.log === 'decision').length;
    const before = lines();
    const missing = await evaluation({ action: { name: 'read' }, resource: { type: 'document', id: '1' } });
    expect(missing.status).toBe(400);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(missing.body.errors).toEqual([{ path: 'subject', message: 'is required' }]);
    const mistyped = await evaluation({ subject: { type: 'user', id: 7 }, action: { name: 'read' }, resource: { type: 'document', id: '1', properties: [] } });
    expect(mistyped.status).toBe(400);
    expect(mistyped.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['resource.properties', 'subject.id']);
    const badName = await evaluations({ subject: alice, resource: { type: 'document', id: '1' }, evaluations: [{ action: { name: 'read' } }, { action: { name: 'read it' } }] });
    expect(badName.status).toBe(400);
    expect(badName.body.errors.map((e: { path: string }) => e.path)).toEqual(['evaluations[1].action.name']);
    const badSemantic = await evaluations({ subject: alice, action: { name: 'read' }, resource: { type: 'document', id: '1' }, options: { evaluations_semantic: 'all' } });
    expect(badSemantic.status).toBe(400);
    expect(badSemantic.body.errors[0].path).toBe('options.evaluations_semantic');

    const anonymous = await request(pdp.server).post(AUTHZEN_PATHS.evaluation).set('X-Request-ID', 'who am i?').send({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toMatch(/^Bearer/);
    expect(anonymous.headers['x-request-id']).toBe('who am i?');
    const unscoped = await pdp.post(AUTHZEN_PATHS.evaluations, {}, pdp.authority.mint({ scopes: ['policy:read'], solutions: ['acme'] }));
    expect(unscoped.status).toBe(403);
    const tooMany = await evaluations({ subject: alice, action: { name: 'read' }, evaluations: Array.from({ length: MAX_BATCH_ITEMS + 1 }, () => ({ resource: { type: 'document', id: '1' } })) });
    expect(tooMany.status).toBe(413);
    expect(lines()).toBe(before);
  });

  it('honours Min-Policy-Revision', async () => {
    const current = pdp.follower.active?.revision ?? 0;
    const ask = { subject: alice, action: { name: 'archive' }, resource: { type: 'document', id: '1' } };
    const answered = evaluation(ask)
      .set('Min-Policy-Revision', String(current + 1))
      .then((response) => response);
    const deployed = await pdp.deploy(P('archive'), policy(P('archive'), `<mechanism event="${A('archive')}"><if><constant:true/><then><allow/></then></if></mechanism>`));
    const response = await answered;
    expect(response.status).toBe(200);
    expect(response.body.decision).toBe(true);
    expect(Number(response.headers['policy-revision'])).toBeGreaterThanOrEqual(deployed);
  });

  it('decides the example policy for AuthZEN callers (examples/policies/authzen-documents.xml)', async () => {
    const xml = readFileSync(path.join(__dirname, '..', '..', '..', 'examples', 'policies', 'authzen-documents.xml'), 'utf8');
    await pdp.deploy('urn:policy:acme:authzen-documents', xml);
    const document = { type: 'document', id: 'd1', properties: { owner: 'bob', department: 'sales', notes: 'draft' } };
    const user = (id: string, department: string) => ({ type: 'user', id, properties: { department } });
    const response = await evaluations({
      action: { name: 'can_read' },
      resource: document,
      evaluations: [{ subject: user('bob', 'sales') }, { subject: user('ann', 'sales') }, { subject: user('eve', 'finance') }],
    });
    expect(decisionsOf(response.body)).toEqual([true, true, false]);
    expect(response.body.evaluations[1].context.modifiers).toEqual([{ name: 'resource', expression: '$.properties.notes', engine: [{ method: 'delete', parameters: [] }] }]);
    const downloads = await evaluations({
      subject: user('ann', 'sales'),
      action: { name: 'can_download' },
      evaluations: Array.from({ length: 4 }, () => ({ resource: document })),
    });
    expect(decisionsOf(downloads.body)).toEqual([true, true, true, false]);
  });

  describe('the metadata (§9)', () => {
    it('is public and names the endpoints under the scheme and host the caller reached', async () => {
      const response = await request(pdp.server).get(AUTHZEN_PATHS.metadata).set('Host', 'pdp.example.com').set('X-Forwarded-Proto', 'https');
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.body).toEqual({
        policy_decision_point: 'https://pdp.example.com',
        access_evaluation_endpoint: 'https://pdp.example.com/access/v1/evaluation',
        access_evaluations_endpoint: 'https://pdp.example.com/access/v1/evaluations',
      });
      // The endpoints it names are where this pdp answers.
      const { port } = pdp.server.address() as { port: number };
      const local = await request(pdp.server).get(AUTHZEN_PATHS.metadata);
      expect(local.body.access_evaluation_endpoint).toBe(`http://127.0.0.1:${port}/access/v1/evaluation`);
    });

    it('refuses a Host that is not a host name, and methods other than GET', async () => {
      expect((await request(pdp.server).get(AUTHZEN_PATHS.metadata).set('Host', 'evil.example.com/path?x')).status).toBe(400);
      expect((await request(pdp.server).post(AUTHZEN_PATHS.metadata).send({})).status).toBe(405);
    });
  });
});

describe('AuthZEN with PDP_AUTHZEN_DEFAULT=allow', () => {
  const pdp = usePdp({ defaultDecision: 'inhibit', authzenDefault: 'allow' });

  it('allows an action no mechanism reacts to, although POST /event inhibits it by DEFAULT_DECISION', async () => {
    const answered = await pdp.post(AUTHZEN_PATHS.evaluation, { subject: alice, action: { name: 'anything' }, resource: { type: 'document', id: '1' } });
    expect(answered.body).toEqual({ decision: true });
    const event = await pdp.post('/event', { actionId: { urn: A('anything') }, timestamp: 0, parameters: [] });
    expect(event.body.eventAllowed).toBe(false);
  });
});
