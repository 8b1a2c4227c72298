import type { AccessEvaluationRequest, EvaluationsSemantic } from '@custos/contracts';
import { applyAuthZenModifiers, type AuthZenResult } from '../src/authzen';
import { MalformedDecisionError, ModifierTargetError, TransportError, UnsupportedModifierError } from '../src/errors';
import { failureOf, useClientBench } from './client-bench';
import { json, modifier } from './servers';

/** `evaluation` and `evaluations` against a real HTTP server standing in for the pdp's AuthZEN routes. */
const DECISION_ID = 'urn:decision:0193a5e2-7c4b-7d6e-9f10-2b3c4d5e6f70';

/** An AuthZEN decision as Custos answers it. */
function authzen(allowed: boolean, { modifiers = [] as unknown[], delay = 0, revision = 4 } = {}) {
  return { decision: allowed, context: { decision_id: DECISION_ID, policy_revision: revision, modifiers, delay_ms: delay } };
}

const bench = useClientBench(() => (_, res) => json(res, 200, authzen(true)));

const request = (): AccessEvaluationRequest => ({
  subject: { type: 'user', id: 'alice@acme.example' },
  action: { name: 'read' },
  resource: { type: 'document', id: 'd1', properties: { title: 'Q3 plan', owner: 'bob' } },
  context: { time: 1_795_424_400 },
});

describe('evaluation', () => {
  it('posts the request as sent and returns the spec’s shape with Custos’ context', async () => {
    const custos = bench.client();
    await expect(custos.evaluation(request())).resolves.toEqual(authzen(true));
    expect(custos.policyRevision).toBe(4);
    const [seen] = bench.pdp.seen;
    expect(seen?.url).toBe('/access/v1/evaluation');
    expect(seen?.headers.authorization).toBe('Bearer token-1');
    expect(JSON.parse(seen?.body ?? '')).toEqual(request());
  });

  it('refuses a request without subject, action or resource before sending it', async () => {
    const { action: _, ...withoutAction } = request();
    await expect(bench.client().evaluation(withoutAction as AccessEvaluationRequest)).rejects.toThrow('the access evaluation request needs `action`');
    expect(bench.pdp.seen).toHaveLength(0);
  });

  it('reads a bare decision, taking the id and the revision from the headers', async () => {
    bench.pdp.handle((_, res) => json(res, 200, { decision: false }, { 'Policy-Revision': '9', 'Custos-Decision-Id': DECISION_ID }));
    await expect(bench.client().evaluation(request())).resolves.toEqual({
      decision: false,
      context: { decision_id: DECISION_ID, policy_revision: 9, modifiers: [], delay_ms: 0 },
    });
    bench.pdp.handle((_, res) => json(res, 200, { decision: true, context: { modifiers: [], delay_ms: 300 } }, { 'Policy-Revision': '9', 'Custos-Decision-Id': DECISION_ID }));
    await expect(bench.client().evaluation(request())).resolves.toEqual({
      decision: true,
      context: { decision_id: DECISION_ID, policy_revision: 9, modifiers: [], delay_ms: 300 },
    });
  });

  it.each([
    ['a bare boolean without a decision id header', { decision: true }, 'no decision id, neither in `context.decision_id` nor in header `Custos-Decision-Id`'],
    ['a context that is not an object', { decision: true, context: [] }, '`context` must be an object'],
    ['a decision as text', { ...authzen(true), decision: 'true' }, '`decision` must be a boolean'],
    ['no revision', { decision: true, context: { ...authzen(true).context, policy_revision: -1 } }, '`context.policy_revision` must be a revision'],
    ['a malformed modifier', authzen(true, { modifiers: [{ name: 'resource' }] }), '`context.modifiers[0]`: `expression` must be a string'],
  ])('rejects %s as malformed', async (_, body, message) => {
    bench.pdp.handle((__, res) => json(res, 200, body));
    const error = await failureOf(bench.client().evaluation(request()));
    expect(error).toBeInstanceOf(MalformedDecisionError);
    expect((error.cause as Error).message).toBe(message);
  });

  it('never repeats a request that may have reached the pdp', async () => {
    bench.pdp.handle((_, res, req) => void req.socket.destroy());
    expect(await failureOf(bench.client().evaluation(request()))).toBeInstanceOf(TransportError);
    expect(bench.pdp.seen).toHaveLength(1);
  });
});

describe('evaluations', () => {
  const batch = (semantic?: EvaluationsSemantic) => ({
    subject: { type: 'user', id: 'alice@acme.example' },
    resource: { type: 'document', id: 'd1' },
    evaluations: [{ action: { name: 'read' } }, { action: { name: 'edit' } }, { action: { name: 'delete' } }],
    ...(semantic === undefined ? {} : { options: { evaluations_semantic: semantic } }),
  });

  it('returns one decision per evaluation, in order', async () => {
    bench.pdp.handle((_, res) => json(res, 200, { evaluations: [authzen(true), authzen(true), authzen(false, { revision: 4 })] }));
    const results = await bench.client().evaluations(batch());
    expect(results.evaluations.map((result) => result.decision)).toEqual([true, true, false]);
    // Bare decisions take their ids from the header, in order.
    const ids = ['urn:decision:1', 'urn:decision:2', 'urn:decision:3'];
    bench.pdp.handle((_, res) => json(res, 200, { evaluations: [{ decision: true }, { decision: false }, { decision: true }] }, { 'Policy-Revision': '5', 'Custos-Decision-Id': ids.join(', ') }));
    const bare = await bench.client().evaluations(batch());
    expect(bare.evaluations.map((result) => [result.decision, result.context.decision_id, result.context.policy_revision])).toEqual([
      [true, ids[0], 5],
      [false, ids[1], 5],
      [true, ids[2], 5],
    ]);
    expect(bench.pdp.seen[0]?.url).toBe('/access/v1/evaluations');
    expect(JSON.parse(bench.pdp.seen[0]?.body ?? '')).toEqual(batch());
  });

  it('accepts fewer decisions only when a semantic may stop early', async () => {
    bench.pdp.handle((_, res) => json(res, 200, { evaluations: [authzen(true), authzen(false)] }));
    await expect(bench.client().evaluations(batch('deny_on_first_deny'))).resolves.toEqual({ evaluations: [authzen(true), authzen(false)] });
    const error = await failureOf(bench.client().evaluations(batch()));
    expect(error).toBeInstanceOf(MalformedDecisionError);
    expect((error.cause as Error).message).toBe('3 evaluations were sent but 2 decisions came back');
    bench.pdp.handle((_, res) => json(res, 200, { evaluations: [] }));
    expect(await failureOf(bench.client().evaluations(batch('permit_on_first_permit')))).toBeInstanceOf(MalformedDecisionError);
  });

  it('refuses a request without evaluations, pointing to evaluation()', async () => {
    await expect(bench.client().evaluations({ ...batch(), evaluations: [] })).rejects.toThrow('use `evaluation()` for a single one');
    expect(bench.pdp.seen).toHaveLength(0);
  });
});

describe('applyAuthZenModifiers', () => {
  it('applies the modifiers to a copy of the entities they name', () => {
    const evaluation = { ...request(), context: undefined };
    const snapshot = structuredClone(evaluation);
    const result = authzen(true, {
      modifiers: [modifier('resource', '$.properties.title', 'password'), modifier('subject', '$.id', 'shorten', { length: 5 }), modifier('context', '$', 'delete')],
    });
    const released = applyAuthZenModifiers(evaluation, result as AuthZenResult);
    expect(released).toEqual({
      subject: { type: 'user', id: 'alice.' },
      action: { name: 'read' },
      resource: { type: 'document', id: 'd1', properties: { title: '*******', owner: 'bob' } },
    });
    expect(evaluation).toEqual(snapshot);
  });

  it('refuses a modifier aimed at a parameter the evaluation does not have, naming it', () => {
    const result = authzen(true, { modifiers: [modifier('resource', '$.properties.title', 'password'), modifier('document', '$.secret', 'delete')] });
    const evaluation = request();
    let thrown: unknown;
    try {
      applyAuthZenModifiers(evaluation, result as AuthZenResult);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ModifierTargetError);
    expect((thrown as ModifierTargetError).parameter).toBe('document');
    expect((thrown as ModifierTargetError).context.index).toBe(1);
    expect((thrown as Error).message).toBe('a modifier aims at `document`, which an authzen evaluation does not have');
    // Nothing was applied to the evaluation given.
    expect(evaluation.resource.properties).toEqual({ title: 'Q3 plan', owner: 'bob' });
  });

  it('fails closed on a modifier it cannot apply', () => {
    const result = authzen(true, { modifiers: [modifier('resource', '$.properties.title', 'encrypt')] });
    expect(() => applyAuthZenModifiers(request(), result as AuthZenResult)).toThrow(UnsupportedModifierError);
  });
});
