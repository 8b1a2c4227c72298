import request from 'supertest';
import { waitFor } from '@custos/test-kit';
import { TestEndpoint } from './support/endpoints';
import { component, policy, wireEvent } from './support/pdp';
import { usePdp } from './support/use-pdp';

/**
 * PIP queries and PXP executions through POST /event and /event/explain, against real HTTP servers on 127.0.0.1
 * registered as components (they reach the pdp with the deployed set).
 */
const A = (name: string) => `urn:action:acme:${name}`;
const P = (name: string) => `urn:policy:acme:${name}`;
const ROLE = 'urn:info:acme:role';
const answer = (value: unknown) => ({ value, type: 'java.lang.String', isComplex: false });
/** Longer than any test: a call answered with this delay waits for releaseHeldCalls. */
const HELD_MS = 60_000;

/** Lets every call the endpoint holds (`delayMs`) answer now. */
function releaseHeldCalls(endpoint: TestEndpoint): void {
  // The endpoint keeps its pending delays to end them at stop(); this file may not change the shared support code.
  for (const delay of [...endpoint['delays']]) delay.resolve();
}

/** How many calls the endpoint holds unanswered right now. */
const heldCalls = (endpoint: TestEndpoint): number => endpoint['delays'].size;

/** A request started now whose outcome the test reads later, without awaiting it (`settled` tells whether it came). */
function track<T>(pending: PromiseLike<T>): { settled: boolean; value?: T } {
  const tracked: { settled: boolean; value?: T } = { settled: false };
  void Promise.resolve(pending).then((value) => Object.assign(tracked, { settled: true, value }));
  return tracked;
}

/** The value of `tracked` once it came, failing at waitFor's deadline (not at jest's) when it does not. */
async function settled<T>(tracked: Array<{ settled: boolean; value?: T }>, what: string): Promise<T[]> {
  await waitFor(() => tracked.every((t) => t.settled), { what });
  return tracked.map((t) => t.value as T);
}

const OPEN_MECHANISM = `<mechanism event="${A('open')}">
  <if><equals><pip:string method="${ROLE}" default="nobody"><parameter:string name="user"><event:string eventParameter="user" default=""/></parameter:string></pip:string><constant:string value="admin"/></equals>
    <then><allow reason="admin"/></then></if>
  <else><inhibit reason="not an admin"/></else>
</mechanism>`;
const PURE_MECHANISM = `<mechanism event="${A('pure')}"><if><constant:true/><then><allow/></then></if></mechanism>`;

describe('PIPs and PXPs through the HTTP API', () => {
  const pdp = usePdp({ pipTimeoutMs: 300, breakerFailures: 3, breakerOpenMs: 60_000, pipMaxConcurrency: 4, pxpBackoffMs: 10 });
  let pip: TestEndpoint;
  let pxp: TestEndpoint;

  beforeAll(async () => {
    pip = await new TestEndpoint().start();
    pxp = await new TestEndpoint(true).start();
    await pdp.register(component('PIP', 'hr', pip.url, [ROLE, 'dept']));
    await pdp.register(component('PXP', 'mail', pxp.url, [A('notify'), 'check']));
    await pdp.deploy(
      P('roles'),
      policy(
        P('roles'),
        `${OPEN_MECHANISM}
        <mechanism event="${A('cached')}">
          <if><equals><pip:string method="${ROLE}" default="nobody" ttl="1h"><parameter:string name="user"><event:string eventParameter="user" default=""/></parameter:string></pip:string><constant:string value="admin"/></equals>
            <then><allow/></then></if>
          <else><inhibit/></else>
        </mechanism>
        <mechanism event="${A('twice')}">
          <if><and>
            <equals><pip:string method="${ROLE}" default="nobody"><parameter:string name="user" value="x"/></pip:string><constant:string value="admin"/></equals>
            <equals><pip:string method="${ROLE}" default="nobody"><parameter:string name="user" value="x"/></pip:string><constant:string value="admin"/></equals>
          </and><then><allow/></then></if>
          <else><inhibit/></else>
        </mechanism>
        <mechanism event="${A('bare')}">
          <if><equals><pip:string method="urn:info:acme:dept" default="none"/><constant:string value="hr"/></equals><then><allow/></then></if>
          <else><inhibit/></else>
        </mechanism>
        <mechanism event="${A('unknown')}">
          <if><equals><pip:string method="urn:info:acme:nobody-answers" default="fallback"/><constant:string value="fallback"/></equals><then><allow/></then></if>
          <else><inhibit/></else>
        </mechanism>`,
      ),
    );
    await pdp.deploy(
      P('notify'),
      policy(
        P('notify'),
        `<mechanism event="${A('share')}">
          <if><constant:true/><then><allow/><execute action="${A('notify')}"><parameter:string name="doc"><event:string eventParameter="doc" default=""/></parameter:string></execute></then></if>
        </mechanism>
        <mechanism event="${A('print')}">
          <if><execute action="${A('check')}"><parameter:string name="doc"><event:string eventParameter="doc" default=""/></parameter:string></execute>
            <then><inhibit reason="the check said so"/></then></if>
          <else><allow/></else>
        </mechanism>
        ${PURE_MECHANISM}`,
      ),
    );
  });

  afterAll(async () => {
    await pip?.stop();
    await pxp?.stop();
  });

  beforeEach(() => {
    pip.calls.length = 0;
    pxp.calls.length = 0;
    pip.behaviour = (call) => ({ answer: answer(call.body.parameters[0]?.value.value === 'ann' ? 'admin' : 'guest') });
    pxp.behaviour = () => ({ answer: true });
    pdp.pip.clear();
    // Fresh circuit breakers for every test.
    pdp.targets.close();
  });

  const post = (path: string, action: string, parameters: Record<string, unknown> = {}) =>
    request(pdp.server).post(path).set('Authorization', `Bearer ${pdp.token}`).send(wireEvent(action, parameters));
  const allowed = async (action: string, parameters: Record<string, unknown> = {}) => {
    const response = await post('/event', action, parameters);
    expect(response.status).toBe(200);
    return response.body.eventAllowed as boolean;
  };

  describe('pip', () => {
    it('asks the registered PIP with the api.md §6 body and uses its answer', async () => {
      expect(await allowed('open', { user: 'ann' })).toBe(true);
      expect(await allowed('open', { user: 'bob' })).toBe(false);
      expect(pip.calls.map((c) => c.body)).toEqual([
        { infoId: { urn: ROLE }, parameters: [{ name: 'user', value: { value: 'ann', type: 'java.lang.String', isComplex: false } }] },
        { infoId: { urn: ROLE }, parameters: [{ name: 'user', value: { value: 'bob', type: 'java.lang.String', isComplex: false } }] },
      ]);
    });

    it('finds a method registered by its last segment only', async () => {
      pip.behaviour = () => ({ answer: answer('hr') });
      expect(await allowed('bare')).toBe(true);
      expect(pip.calls[0]!.body.infoId).toEqual({ urn: 'urn:info:acme:dept' });
    });

    it('asks once per request for the same method and parameters, and again at the next request without ttl', async () => {
      pip.behaviour = () => ({ answer: answer('admin') });
      expect(await allowed('twice')).toBe(true);
      expect(pip.calls).toHaveLength(1);
      expect(await allowed('twice')).toBe(true);
      expect(pip.calls).toHaveLength(2);
    });

    it('caches answers with a ttl per (method, parameters), and explain says so', async () => {
      expect(await allowed('cached', { user: 'ann' })).toBe(true);
      expect(await allowed('cached', { user: 'ann' })).toBe(true);
      expect(pip.calls).toHaveLength(1);
      expect(await allowed('cached', { user: 'bob' })).toBe(false);
      expect(pip.calls).toHaveLength(2);
      const explained = await post('/event/explain', 'cached', { user: 'ann' });
      expect(explained.body.explanation[0].pip).toEqual([
        {
          method: ROLE,
          parameters: [{ name: 'user', value: { value: 'ann', type: 'java.lang.String', isComplex: false } }],
          value: { value: 'admin', type: 'java.lang.String', isComplex: false },
          usedDefault: false,
          cached: true,
        },
      ]);
      expect(pip.calls).toHaveLength(2);
    });

    it('takes the default for an error, a mistyped or malformed answer, and an unregistered method', async () => {
      pip.behaviour = () => ({ status: 500, answer: { error: 'boom' } });
      const failed = await post('/event/explain', 'open', { user: 'ann' });
      expect(failed.body.eventAllowed).toBe(false);
      expect(failed.body.explanation[0].pip[0]).toMatchObject({ value: { value: 'nobody' }, usedDefault: true, reason: 'the pip failed', cached: false });
      pip.behaviour = () => ({ answer: { value: { not: 'a string' }, type: 'java.lang.Object', isComplex: true } });
      expect((await post('/event/explain', 'open', { user: 'ann' })).body.explanation[0].pip[0].usedDefault).toBe(true);
      pip.behaviour = () => ({ raw: 'not json' });
      expect((await post('/event/explain', 'open', { user: 'ann' })).body.explanation[0].pip[0].usedDefault).toBe(true);
      expect(await allowed('unknown')).toBe(true);
    });

    it('gives up on a slow PIP at the timeout and takes the default', async () => {
      // The PIP holds every call until the test releases it: the decisions can only come back by giving up on it.
      pip.behaviour = () => ({ answer: answer('admin'), delayMs: HELD_MS });
      const logged = pdp.log.lines.length;
      const slow = [1, 2, 3].map(() => track(post('/event', 'open', { user: 'ann' })));
      const answers = await settled(slow, 'the decisions while the PIP holds its answers');
      expect(answers.map((r) => r.body.eventAllowed)).toEqual([false, false, false]);
      expect(pip.calls).toHaveLength(3);
      expect(heldCalls(pip)).toBe(3);
      // Given up by the timeout (300 ms here), not by any other failure.
      const failures = pdp.log.lines.slice(logged).filter((l) => l.msg === 'pip call failed; the default applies');
      expect(failures.map((l) => l.problem)).toEqual(Array.from({ length: 3 }, () => 'no answer within 300 ms'));
      releaseHeldCalls(pip);
    });
    it('opens the circuit after repeated failures: the PIP is not called any more', async () => {
      pip.behaviour = () => ({ status: 503 });
      for (let i = 0; i < 3; i++) expect(await allowed('open', { user: 'ann' })).toBe(false);
      expect(pip.calls).toHaveLength(3);
      pip.behaviour = () => ({ answer: answer('admin') });
      for (let i = 0; i < 5; i++) expect(await allowed('open', { user: 'ann' })).toBe(false);
      expect(pip.calls).toHaveLength(3);
      expect(await pdp.metrics.registry.getSingleMetricAsString('pip_calls_total')).toMatch(/outcome="refused"[^}]*\} [1-9]/);
    });
  });

  describe('pxp', () => {
    const lines = (decisionId: string) => pdp.log.lines.filter((l) => l.decisionId === decisionId && String(l.msg).startsWith('pxp execute'));

    it('runs executes after the answer, retrying with backoff, and logs the outcome with the decision id', async () => {
      // The third attempt is held until the test has the answer: an answer that waited for its executes would come
      // only after that attempt timed out, and the execute would not end `done` after three attempts.
      pxp.behaviour = (_call, index) => (index < 2 ? { status: 500 } : { answer: true, delayMs: HELD_MS });
      const response = await post('/event', 'share', { doc: 'd1' });
      expect(response.body.eventAllowed).toBe(true);
      const decisionId = response.body.id.identifier as string;
      await waitFor(() => pxp.calls.length === 3, { what: 'the third attempt' });
      expect(lines(decisionId).find((l) => l.msg === 'pxp execute done')).toBeUndefined();
      releaseHeldCalls(pxp);
      const done = await waitFor(() => lines(decisionId).find((l) => l.msg === 'pxp execute done'), { what: 'the pxp outcome' });
      expect(done).toMatchObject({ policyId: P('notify'), action: A('notify'), outcome: 'done', attempts: 3, component: 'urn:component:acme:pxp:mail' });
      expect(pxp.calls).toHaveLength(3);
      expect(pxp.calls[2]!.body).toEqual({
        id: { urn: A('notify') },
        parameters: [{ name: 'doc', value: { value: 'd1', type: 'java.lang.String', isComplex: false } }],
      });
      expect(lines(decisionId).filter((l) => l.msg === 'pxp execute failed; retrying')).toHaveLength(2);
    });

    it('logs a refusal without retrying, and a failure after the last attempt', async () => {
      pxp.behaviour = () => ({ answer: false });
      const refused = (await post('/event', 'share', { doc: 'd2' })).body.id.identifier as string;
      await waitFor(() => lines(refused).find((l) => l.msg === 'pxp execute refused'), { what: 'the refusal' });
      expect(pxp.calls).toHaveLength(1);
      pxp.behaviour = () => ({ hangUp: true });
      const failed = (await post('/event', 'share', { doc: 'd3' })).body.id.identifier as string;
      const line = await waitFor(() => lines(failed).find((l) => l.msg === 'pxp execute failed'), { what: 'the failure' });
      expect(line).toMatchObject({ outcome: 'failed', attempts: 4, level: 'error' });
      // Three hang-ups open the circuit (breaker at 3 failures here): the fourth attempt is refused without a call.
      expect(line.problem).toMatch(/circuit is open/);
      expect(pxp.calls.filter((c) => c.body.parameters[0].value.value === 'd3')).toHaveLength(3);
    });

    it('answers an execute inside a condition synchronously, false on failure or timeout', async () => {
      pxp.behaviour = () => ({ answer: true });
      expect(await allowed('print', { doc: 'x' })).toBe(false);
      pxp.behaviour = () => ({ answer: false });
      expect(await allowed('print', { doc: 'x' })).toBe(true);
      // Held until the test releases it: the decision can only come back by giving up on the PXP (`true` unseen).
      pxp.behaviour = () => ({ answer: true, delayMs: HELD_MS });
      const [held] = await settled([track(post('/event', 'print', { doc: 'x' }))], 'the decision while the PXP holds its answer');
      expect(held!.body.eventAllowed).toBe(true);
      expect(heldCalls(pxp)).toBe(1);
      releaseHeldCalls(pxp);
      expect(pxp.calls.map((c) => c.body.id.urn)).toEqual([A('check'), A('check'), A('check')]);
    });

    it('never calls a PXP while explaining, and shows the planned executes', async () => {
      const shared = await post('/event/explain', 'share', { doc: 'd4' });
      expect(shared.body.explanation[0].executions).toEqual([
        { action: A('notify'), parameters: [{ name: 'doc', value: { value: 'd4', type: 'java.lang.String', isComplex: false } }] },
      ]);
      const printed = await post('/event/explain', 'print', { doc: 'd4' });
      expect(printed.body.explanation[0].conditionExecutions).toEqual([
        { action: A('check'), parameters: [{ name: 'doc', value: { value: 'd4', type: 'java.lang.String', isComplex: false } }], called: false, answer: false },
      ]);
      // Executes are dispatched before the response handler returns: none is pending, none was called.
      expect(pdp.pxp.size).toBe(0);
      expect(pxp.calls).toHaveLength(0);
    });
  });
});

describe('a PIP slower than any decision that does not ask it', () => {
  // A timeout far beyond the test: decisions asking the held PIP wait for the test's release, nothing else.
  const pdp = usePdp({ pipTimeoutMs: HELD_MS, pipMaxConcurrency: 4 });
  let pip: TestEndpoint;

  beforeAll(async () => {
    pip = await new TestEndpoint().start();
    await pdp.register(component('PIP', 'hr', pip.url, [ROLE]));
    await pdp.deploy(P('slow'), policy(P('slow'), `${OPEN_MECHANISM}\n${PURE_MECHANISM}`));
  });

  afterAll(async () => {
    await pip?.stop();
  });

  beforeEach(() => {
    pip.calls.length = 0;
    pip.behaviour = () => ({ answer: answer('admin'), delayMs: HELD_MS });
  });

  const post = (action: string, parameters: Record<string, unknown> = {}) =>
    request(pdp.server).post('/event').set('Authorization', `Bearer ${pdp.token}`).send(wireEvent(action, parameters));

  it('decides what does not ask the PIP while its calls are held', async () => {
    const slow = [1, 2, 3].map(() => track(post('open', { user: 'ann' })));
    await waitFor(() => heldCalls(pip) === 3, { what: 'the three PIP calls held' });
    for (let i = 0; i < 10; i++) {
      const [pure] = await settled([track(post('pure'))], 'a decision that does not ask the PIP');
      expect(pure!.body.eventAllowed).toBe(true);
    }
    expect(slow.filter((s) => s.settled)).toHaveLength(0);
    expect(heldCalls(pip)).toBe(3);
    releaseHeldCalls(pip);
    const answers = await settled(slow, 'the decisions once the PIP answered');
    expect(answers.map((r) => r.body.eventAllowed)).toEqual([true, true, true]);
  });

  it('bounds the calls in flight per PIP: beyond the bound the default applies at once', async () => {
    const decisions = Array.from({ length: 8 }, () => track(post('open', { user: 'ann' })));
    // Four calls fill the bound; the other four decisions come back while those are still held.
    await waitFor(() => decisions.filter((d) => d.settled).length === 4 && heldCalls(pip) === 4, { what: 'four defaults beside four held calls' });
    expect(decisions.filter((d) => d.settled).map((d) => d.value!.body.eventAllowed)).toEqual([false, false, false, false]);
    releaseHeldCalls(pip);
    const answers = await settled(decisions, 'the held decisions once the PIP answered');
    expect(answers.filter((r) => r.body.eventAllowed)).toHaveLength(4);
    expect(pip.calls).toHaveLength(4);
  });
});
