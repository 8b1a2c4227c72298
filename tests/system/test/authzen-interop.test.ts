import { AUTHZEN_PATHS, HEADERS, type AuthZenDecision, type AuthorizationDecision, type Event } from '@custos/contracts';
import { CustosClient, applyAuthZenModifiers, event, typed } from '@custos/pep';
import { call, clientToken, startStack, TEST_NATS_URL, type Answer, type Stack } from '@custos/test-kit';
import { EXPECTED, NOW, PLAN, SOLUTION, document, downloadDay, scenarioPolicies, user, type ExpectedDecision } from './authzen-scenario';
import { defined, deploy, readmeExamples, runExample } from './pep-support';

/**
 * Interoperability: a document-sharing app's rules written as MYDATA policies (examples/authzen/policies), asked
 * through the OpenID AuthZEN endpoints as any AuthZEN PEP asks them (plain JSON over HTTP, bearer token), and
 * through the PEP SDK; then Custos' own batch `POST /events` against a loop of single `POST /event` calls, with a
 * history-counted download limit, on a real stack (auth, pap, a pdp; PostgreSQL and NATS).
 */

describe('AuthZEN interoperability: a document-sharing app', () => {
  let stack: Stack;
  let pep: { id: string; secret: string };
  let token: string;
  let revision = 0;
  const pdpUrl = () => defined(stack.pdps[0], 'the pdp').url;
  /** Every decision request waits for the deployed set, so none is answered by an older one. */
  const ask = (route: string, json: unknown): Promise<Answer> =>
    call('POST', `${pdpUrl()}${route}`, { token, json, headers: { [HEADERS.minPolicyRevision]: String(revision) } });

  beforeAll(async () => {
    stack = await startStack({ natsUrl: TEST_NATS_URL, replicas: 1 });
    const admin = await stack.adminToken();
    const created = await call('POST', `${stack.auth.url}/clients`, {
      token: admin,
      json: { solutions: [SOLUTION], scopes: ['event:decide'], description: 'document-sharing gateway' },
    });
    if (created.status !== 201) throw new Error(`registering the pep failed: ${created.status}`);
    const body = created.body as { client_id: string; client_secret: string };
    pep = { id: body.client_id, secret: body.client_secret };
    for (const xml of scenarioPolicies()) revision = await deploy(stack, admin, xml);
    token = await clientToken(stack.auth.url, pep.id, pep.secret);
  }, 120_000);

  afterAll(() => stack?.stop(), 60_000);

  const sdk = () => new CustosClient({ pdpUrl: pdpUrl(), authUrl: stack.auth.url, clientId: pep.id, clientSecret: pep.secret });
  const request = (row: ExpectedDecision) => ({
    subject: row.subject,
    action: { name: row.action },
    resource: PLAN,
    ...(row.context === undefined ? {} : { context: row.context }),
  });
  const modifiersOf = (decision: AuthZenDecision) => (decision.context?.modifiers ?? []).map((m) => `${m.engine[0].method} ${m.expression}`);

  it('publishes its AuthZEN metadata', async () => {
    const metadata = await call('GET', `${pdpUrl()}${AUTHZEN_PATHS.metadata}`);
    expect(metadata.status).toBe(200);
    expect(metadata.body).toMatchObject({
      access_evaluation_endpoint: expect.stringMatching(/\/access\/v1\/evaluation$/) as unknown,
      access_evaluations_endpoint: expect.stringMatching(/\/access\/v1\/evaluations$/) as unknown,
    });
  });

  it.each(EXPECTED.map((row) => [row.why, row] as const))('single evaluation: %s', async (_, row) => {
    const answer = await ask(AUTHZEN_PATHS.evaluation, request(row));
    expect(answer.status).toBe(200);
    const decision = answer.body as AuthZenDecision;
    expect(decision.decision).toBe(row.decision);
    expect(modifiersOf(decision)).toEqual(row.modifiers ?? []);
    // The id and revision travel in headers; a context comes only with something to act on (here: modifiers).
    expect(answer.headers.get(HEADERS.decisionId)).toMatch(/^urn:decision:[0-9a-f-]{36}$/);
    expect(answer.headers.get(HEADERS.policyRevision)).toBe(String(revision));
    expect(decision).toEqual(row.modifiers === undefined ? { decision: row.decision } : { decision: row.decision, context: { modifiers: expect.any(Array) as unknown, delay_ms: 0 } });
  });

  it('denies an action no policy of the app mentions, as AuthZEN peers do', async () => {
    const answer = await ask(AUTHZEN_PATHS.evaluation, { subject: user('olivia'), action: { name: 'archive' }, resource: PLAN });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ decision: false });
  });

  it('evaluations: the whole table in one request, entries replacing the top-level defaults', async () => {
    const answer = await ask(AUTHZEN_PATHS.evaluations, {
      resource: PLAN,
      context: { time: NOW },
      evaluations: EXPECTED.map((row) => ({ subject: row.subject, action: { name: row.action }, context: row.context ?? {} })),
    });
    expect(answer.status).toBe(200);
    const { evaluations } = answer.body as { evaluations: AuthZenDecision[] };
    expect(evaluations.map((d) => d.decision)).toEqual(EXPECTED.map((row) => row.decision));
    expect(evaluations.map(modifiersOf)).toEqual(EXPECTED.map((row) => row.modifiers ?? []));
  });

  it('evaluations: defaults for subject and resource, one entry naming another subject', async () => {
    const answer = await ask(AUTHZEN_PATHS.evaluations, {
      subject: user('edith'),
      resource: PLAN,
      evaluations: [
        { action: { name: 'read' } },
        { action: { name: 'edit' } },
        { action: { name: 'delete' } },
        { action: { name: 'share' } },
        { subject: user('olivia'), action: { name: 'delete' } },
      ],
    });
    expect((answer.body as { evaluations: AuthZenDecision[] }).evaluations.map((d) => d.decision)).toEqual([true, true, false, false, true]);
  });

  it('evaluations: deny_on_first_deny stops after the first deny, permit_on_first_permit after the first permit', async () => {
    const actions = (...names: string[]) => names.map((name) => ({ action: { name } }));
    const denyFirst = await ask(AUTHZEN_PATHS.evaluations, {
      subject: user('victor'),
      resource: PLAN,
      evaluations: actions('read', 'edit', 'delete'),
      options: { evaluations_semantic: 'deny_on_first_deny' },
    });
    expect((denyFirst.body as { evaluations: AuthZenDecision[] }).evaluations.map((d) => d.decision)).toEqual([true, false]);

    const permitFirst = await ask(AUTHZEN_PATHS.evaluations, {
      subject: user('victor'),
      resource: PLAN,
      evaluations: actions('delete', 'share', 'read', 'edit'),
      options: { evaluations_semantic: 'permit_on_first_permit' },
    });
    expect((permitFirst.body as { evaluations: AuthZenDecision[] }).evaluations.map((d) => d.decision)).toEqual([false, false, true]);

    const all = await ask(AUTHZEN_PATHS.evaluations, {
      subject: user('victor'),
      resource: PLAN,
      evaluations: actions('delete', 'share', 'read', 'edit'),
      options: { evaluations_semantic: 'execute_all' },
    });
    expect((all.body as { evaluations: AuthZenDecision[] }).evaluations.map((d) => d.decision)).toEqual([false, false, true, false]);
  });

  it('answers false for a masked read to a PEP that says it cannot apply modifiers, and tells it why when asked', async () => {
    const masked = { subject: user('rita'), action: { name: 'read' }, resource: PLAN };
    const bare = await ask(AUTHZEN_PATHS.evaluation, { ...masked, options: { custos_modifiers_supported: false } });
    expect(bare.body).toEqual({ decision: false });
    const single = await ask(AUTHZEN_PATHS.evaluation, { ...masked, options: { custos_modifiers_supported: false, custos_context: true } });
    expect(single.body).toMatchObject({ decision: false, context: { reason: 'modifiers_not_supported', policy_revision: revision } });
    expect(modifiersOf(single.body as AuthZenDecision)).toEqual(['password $.properties.title']);

    const batch = await ask(AUTHZEN_PATHS.evaluations, {
      resource: PLAN,
      action: { name: 'read' },
      evaluations: [{ subject: user('rita') }, { subject: user('victor') }],
      options: { custos_modifiers_supported: false },
    });
    expect((batch.body as { evaluations: AuthZenDecision[] }).evaluations.map((d) => d.decision)).toEqual([false, true]);
  });

  it('the SDK: evaluation and evaluations give the table’s answers, and the reviewer gets the title masked', async () => {
    const custos = sdk();
    const reviewer = { subject: user('rita'), action: { name: 'read' }, resource: PLAN };
    const result = await custos.evaluation(reviewer, { minPolicyRevision: revision });
    expect(result.decision).toBe(true);
    const released = applyAuthZenModifiers(reviewer, result);
    expect(released.resource?.properties).toEqual({ ...PLAN.properties, title: '**************' });
    expect(reviewer.resource.properties?.title).toBe('Quarterly plan');

    const results = await custos.evaluations({
      resource: PLAN,
      context: { time: NOW },
      evaluations: EXPECTED.map((row) => ({ subject: row.subject, action: { name: row.action }, context: row.context ?? {} })),
    });
    expect(results.evaluations.map((d) => d.decision)).toEqual(EXPECTED.map((row) => row.decision));
    expect(new Set(results.evaluations.map((d) => d.context.decision_id)).size).toBe(EXPECTED.length);
  });

  it('the SDK README’s AuthZEN example prints what it says', async () => {
    const example = defined(readmeExamples().get('authzen'), 'the authzen example');
    const lines = await runExample(example, {
      CUSTOS_PDP_URL: pdpUrl(),
      CUSTOS_AUTH_URL: stack.auth.url,
      CUSTOS_CLIENT_ID: pep.id,
      CUSTOS_CLIENT_SECRET: pep.secret,
    });
    expect(lines).toEqual(['edith: true true false', 'rita sees: **************']);
  }, 60_000);

  describe('batch POST /events against a loop of single POST /event calls', () => {
    /** The day's events as Custos events, the way the AuthZEN mapping builds them. */
    const eventsOf = (day: ReturnType<typeof downloadDay>): Event[] =>
      day.map((step) =>
        event(SOLUTION, step.action, {
          subject: typed(step.subject, 'org.openid.authzen.Subject'),
          resource: typed(step.resource, 'org.openid.authzen.Resource'),
          action: typed({ name: step.action }, 'org.openid.authzen.Action'),
          context: typed({ time: NOW }, 'org.openid.authzen.Context'),
        }),
      );
    const outcome = (d: AuthorizationDecision) => ({ allowed: d.eventAllowed, modifiers: d.modifiers, delay: d.delay });

    it('answers the same decisions in the same order, the download limit counted in order inside the batch', async () => {
      // Each run has its own viewer and editor, so each starts from an empty download history.
      const loopDay = downloadDay('victor-loop', 'edith-loop');
      const looped: AuthorizationDecision[] = [];
      for (const single of eventsOf(loopDay)) {
        const answer = await ask('/event', single);
        expect(answer.status).toBe(200);
        looped.push(answer.body as AuthorizationDecision);
      }
      expect(looped.map((d) => d.eventAllowed)).toEqual(loopDay.map((step) => step.allowed));
      expect(looped.map((d) => d.modifiers.length)).toEqual(loopDay.map((step) => step.modifiers));

      const batchDay = downloadDay('victor-batch', 'edith-batch');
      const batch = await ask('/events', { events: eventsOf(batchDay) });
      expect(batch.status).toBe(200);
      expect(Number(batch.headers.get(HEADERS.policyRevision))).toBe(revision);
      const decisions = (batch.body as { decisions: AuthorizationDecision[] }).decisions;
      expect(decisions.map(outcome)).toEqual(looped.map(outcome));
      expect(new Set(decisions.map((d) => d.id.identifier)).size).toBe(decisions.length);

      // The SDK's decideAll: the same answers again, for a third pair of people.
      const sdkDay = downloadDay('victor-sdk', 'edith-sdk');
      const viaSdk = await sdk().decideAll(eventsOf(sdkDay), { minPolicyRevision: revision });
      expect(viaSdk.map(outcome)).toEqual(looped.map(outcome));
      expect(viaSdk.every((d) => d.policyRevision === revision)).toBe(true);
    }, 60_000);

    it('counts the loop’s downloads for a later batch of the same people, and the batch’s for a later single call', async () => {
      const doc = document('handbook', { owner: 'olivia', viewers: ['vera'] });
      const download = () => ({ subject: user('vera'), action: 'download', resource: doc, allowed: true, modifiers: 0 });
      const [first] = eventsOf([download()]);
      expect(((await ask('/event', first)).body as AuthorizationDecision).eventAllowed).toBe(true);
      const batch = await ask('/events', { events: eventsOf([download(), download(), download()]) });
      expect((batch.body as { decisions: AuthorizationDecision[] }).decisions.map((d) => d.eventAllowed)).toEqual([true, true, false]);
      expect(((await ask('/event', first)).body as AuthorizationDecision).eventAllowed).toBe(false);
    });
  });
});
