import { alice, decisionsOf, DECISION_ID, useAuthZenPdp } from './support/authzen-policies';

/**
 * The requests of the AuthZEN Authorization API 1.0 specification's examples, sent as they stand there to a pdp on
 * real PostgreSQL and NATS, with policies that make the decisions the examples show.
 */
describe('the examples of the AuthZEN specification', () => {
  const { pdp, evaluation, evaluations } = useAuthZenPdp();

  it('§6.1.1: the Access Evaluation request; the action properties reach the policy', async () => {
    const example = {
      subject: alice,
      resource: { type: 'account', id: '123' },
      action: { name: 'can_read', properties: { method: 'GET' } },
      context: { time: '1985-10-26T01:22-07:00' },
    };
    const response = await evaluation(example);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.body.decision).toBe(true);
    const deleting = await evaluation({ ...example, action: { name: 'can_read', properties: { method: 'DELETE' } } });
    expect(deleting.body.decision).toBe(false);
  });

  it('§10.1.4: the HTTPS Access Evaluation request, its X-Request-ID answered unchanged', async () => {
    const response = await evaluation({
      subject: alice,
      resource: { type: 'todo', id: '1' },
      action: { name: 'can_read' },
      context: { time: '1985-10-26T01:22-07:00' },
    }).set('X-Request-ID', 'bfe9eb29-ab87-4ca3-be83-a1d5d8305716');
    expect(response.status).toBe(200);
    expect(response.headers['x-request-id']).toBe('bfe9eb29-ab87-4ca3-be83-a1d5d8305716');
    // Nothing to act on: the bare decision, its id and revision in headers only.
    expect(response.body).toEqual({ decision: true });
    expect(response.headers['custos-decision-id']).toMatch(DECISION_ID);
    expect(response.headers['policy-revision']).toBe(String(pdp.follower.active?.revision));
  });

  it('§7.1: three evaluations without defaults', async () => {
    const entry = (id: string) => ({ subject: alice, action: { name: 'can_read' }, resource: { type: 'document', id }, context: { time: '2024-05-31T15:22-07:00' } });
    const response = await evaluations({ evaluations: [entry('boxcarring.md'), entry('subject-search.md'), entry('resource-search.md')] });
    expect(response.status).toBe(200);
    expect(response.body.decision).toBeUndefined();
    expect(decisionsOf(response.body)).toEqual([true, false, true]);
  });

  it('§7.1.1: a default subject and context', async () => {
    const response = await evaluations({
      subject: alice,
      context: { time: '2024-05-31T15:22-07:00' },
      evaluations: ['boxcarring.md', 'subject-search.md', 'resource-search.md'].map((id) => ({ action: { name: 'can_read' }, resource: { type: 'document', id } })),
    });
    expect(decisionsOf(response.body)).toEqual([true, false, true]);
  });

  it('§7.1.1 and §10.1.4: a default action the third evaluation overrides', async () => {
    const response = await evaluations({
      subject: alice,
      context: { time: '2024-05-31T15:22-07:00' },
      action: { name: 'can_read' },
      evaluations: [
        { resource: { type: 'document', id: 'boxcarring.md' } },
        { resource: { type: 'document', id: 'subject-search.md' } },
        { action: { name: 'can_edit' }, resource: { type: 'document', id: 'resource-search.md' } },
      ],
    }).set('X-Request-ID', 'bfe9eb29-ab87-4ca3-be83-a1d5d8305716');
    expect(response.status).toBe(200);
    expect(response.headers['x-request-id']).toBe('bfe9eb29-ab87-4ca3-be83-a1d5d8305716');
    expect(decisionsOf(response.body)).toEqual([true, false, false]);
    // An editor may edit: the third decision was the can_edit policy's.
    const editor = await evaluations({
      subject: { ...alice, properties: { role: 'editor' } },
      evaluations: [{ action: { name: 'can_edit' }, resource: { type: 'document', id: 'resource-search.md' } }],
    });
    expect(decisionsOf(editor.body)).toEqual([true]);
  });

  describe('§7.1.2.1: the three evaluation semantics on documents 1, 2 and 3', () => {
    const ask = (semantic: string) =>
      evaluations({
        subject: alice,
        action: { name: 'read' },
        options: { evaluations_semantic: semantic },
        evaluations: ['1', '2', '3'].map((id) => ({ resource: { type: 'document', id } })),
      });

    it('execute_all decides every evaluation, and is the default', async () => {
      expect(decisionsOf((await ask('execute_all')).body)).toEqual([true, false, true]);
      const byDefault = await evaluations({ subject: alice, action: { name: 'read' }, evaluations: ['1', '2', '3'].map((id) => ({ resource: { type: 'document', id } })) });
      expect(decisionsOf(byDefault.body)).toEqual([true, false, true]);
    });

    it('deny_on_first_deny stops at the first false, deciding nothing after it', async () => {
      const response = await ask('deny_on_first_deny').set('X-Request-ID', 'deny-first');
      expect(decisionsOf(response.body)).toEqual([true, false]);
      expect(pdp.log.lines.filter((line) => line.log === 'decision' && line.requestId === 'deny-first')).toHaveLength(2);
    });

    it('permit_on_first_permit stops at the first true', async () => {
      const response = await ask('permit_on_first_permit').set('X-Request-ID', 'permit-first');
      expect(decisionsOf(response.body)).toEqual([true]);
      expect(pdp.log.lines.filter((line) => line.log === 'decision' && line.requestId === 'permit-first')).toHaveLength(1);
    });
  });

  it('§7.1.2: the options example lacks an action, here and as a default: 400 naming it', async () => {
    const response = await evaluations({
      evaluations: [{ resource: { type: 'doc', id: '1' }, subject: { type: 'doc', id: '2' } }],
      options: { evaluations_semantic: 'execute_all', another_option: 'value' },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([{ path: 'evaluations[0].action', message: 'is required, here or as a top-level default' }]);
  });
});
