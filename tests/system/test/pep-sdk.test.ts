import { createHash } from 'node:crypto';
import type { Event } from '@custos/contracts';
import { CustosClient, DecisionDeniedError, JsonPathError, UnsupportedModifierError, event, typed, type CustosClientOptions } from '@custos/pep';
import { freePort, startStack, TEST_NATS_URL, waitFor, type Stack } from '@custos/test-kit';
import {
  NS,
  clientsCli,
  defined,
  deploy,
  publishedKids,
  readmeExamples,
  registerPep,
  rejectedDecisions,
  runExample,
  startExample,
  walkthroughPolicy,
} from './pep-support';

/**
 * The PEP SDK against a real stack (auth, pap, a pdp; PostgreSQL and NATS): policies whose modifiers use every
 * method of the language, denials and delays, recovery from a 401 after a signing key was retired, and the SDK
 * README's examples run as a reader runs them.
 */

/** Every text and structure method, in the order the SDK must apply them (document order in the branch). */
const TEXT_POLICY = `<policy ${NS} id="urn:policy:acme:a-mask-text">
  <mechanism event="urn:action:acme:review-employee">
    <if><constant:true/>
      <then>
        <modify eventParameter="user" method="append" jsonPathQuery="$.name.firstName"><parameter:string name="suffix" value=" (masked)"/></modify>
        <modify eventParameter="user" method="shorten" jsonPathQuery="$.name.lastName"/>
        <modify eventParameter="user" method="replaceSubstring" jsonPathQuery="$.email">
          <parameter:string name="substring" value="ann.lee"/><parameter:string name="replacement" value="someone"/><parameter:string name="mode" value="FIRST"/>
        </modify>
        <modify eventParameter="user" method="substring" jsonPathQuery="$.phone"><parameter:number name="startIndex" value="0"/><parameter:number name="endIndex" value="7"/></modify>
        <modify eventParameter="user" method="hash" jsonPathQuery="$.iban"><parameter:string name="algorithm" value="SHA-256"/></modify>
        <modify eventParameter="user" method="password" jsonPathQuery="$.password"/>
        <modify eventParameter="user" method="anagram" jsonPathQuery="$.notes"><parameter:number name="percentage" value="100"/></modify>
        <modify eventParameter="user" method="delete" jsonPathQuery="$.children[*].ssn"/>
        <modify eventParameter="user" method="replace" jsonPathQuery="$.id">
          <parameter:string name="replaceWith"><concat><constant:string value="user-"/><event:string eventParameter="region" default="?"/></concat></parameter:string>
        </modify>
        <modify eventParameter="manager" method="replace" jsonPathQuery="$.name"><parameter:string name="replaceWith" value="(hidden)"/></modify>
        <modify eventParameter="debug" method="delete"/>
      </then>
    </if>
  </mechanism>
</policy>`;

/** Every number method; its id sorts after the text policy's, so its modifiers come after those. */
const NUMBER_POLICY = `<policy ${NS} id="urn:policy:acme:b-mask-numbers">
  <mechanism event="urn:action:acme:review-employee">
    <if><constant:true/>
      <then>
        <modify eventParameter="user" method="round" jsonPathQuery="$.salary"><parameter:string name="mode" value="HALF_UP"/><parameter:number name="interval" value="100"/></modify>
        <modify eventParameter="user" method="add" jsonPathQuery="$.bonus"><parameter:number name="operand" value="300"/></modify>
        <modify eventParameter="user" method="multiply" jsonPathQuery="$.bonus"><parameter:number name="operand" value="2"/></modify>
        <modify eventParameter="user" method="divide" jsonPathQuery="$.age"><parameter:number name="operand" value="10"/></modify>
        <modify eventParameter="user" method="round" jsonPathQuery="$.age"><parameter:string name="mode" value="DOWN"/></modify>
        <modify eventParameter="user" method="sign" jsonPathQuery="$.balance"><parameter:string name="mode" value="SIGNUM"/></modify>
        <modify eventParameter="user" method="round" jsonPathQuery="$.rating">
          <parameter:number name="interval" value="0.5"/><parameter:number name="offset" value="0"/><parameter:string name="mode" value="HALF_EVEN"/>
        </modify>
      </then>
    </if>
  </mechanism>
</policy>`;

const DELAY_POLICY = `<policy ${NS} id="urn:policy:acme:delays">
  <mechanism event="urn:action:acme:export-employees">
    <if><constant:true/><then><inhibit reason="no bulk exports"/><delay amount="1" unit="SECONDS"/></then></if>
  </mechanism>
  <mechanism event="urn:action:acme:download-report">
    <if><constant:true/><then><allow/><delay amount="2" unit="HOURS"/></then></if>
  </mechanism>
</policy>`;

const UNENFORCEABLE_POLICY = `<policy ${NS} id="urn:policy:acme:unenforceable">
  <mechanism event="urn:action:acme:show-salary">
    <if><constant:true/><then><modify eventParameter="user" method="encrypt" jsonPathQuery="$.salary"><parameter:string name="key" value="k1"/></modify></then></if>
  </mechanism>
  <mechanism event="urn:action:acme:show-children">
    <if><constant:true/><then><modify eventParameter="user" method="delete" jsonPathQuery="$.children[?@.name == 'Bo'].ssn"/></then></if>
  </mechanism>
</policy>`;

const IBAN = 'DE89370400440532013000';

function employee(action = 'review-employee'): Event {
  const built = event(
    'acme',
    action,
    {
    user: typed(
      {
        id: 'u1',
        name: { firstName: 'Ann', lastName: 'Lee' },
        email: 'ann.lee@acme.example',
        phone: '+49 170 1234567',
        iban: IBAN,
        password: 'hunter2',
        notes: 'pending review',
        children: [
          { name: 'Bo', ssn: '111' },
          { name: 'Cy', ssn: '222' },
        ],
        salary: 5234.5,
        bonus: 1200,
        age: 37,
        balance: -250,
        rating: 4.26,
      },
      'com.acme.User',
    ),
      region: 'eu',
      debug: { trace: 'abc' },
    },
    { timestamp: 1763798400000 },
  );
  // A peer that sends complex values as JSON text, as the contract allows.
  built.parameters.splice(1, 0, { name: 'manager', value: { value: '{"id":"m1","name":"Bea"}', type: 'com.acme.User', isComplex: true } });
  return built;
}

describe('the PEP SDK against a real stack', () => {
  let stack: Stack;
  let pep: { id: string; secret: string };
  let revision = 0;
  const pdpUrl = () => defined(stack.pdps[0], 'the pdp').url;
  const options = (extra: Partial<CustosClientOptions> = {}): CustosClientOptions => ({
    pdpUrl: pdpUrl(),
    authUrl: stack.auth.url,
    clientId: pep.id,
    clientSecret: pep.secret,
    ...extra,
  });

  beforeAll(async () => {
    stack = await startStack({ natsUrl: TEST_NATS_URL, replicas: 1 });
    const admin = await stack.adminToken();
    pep = await registerPep(stack, admin);
    for (const xml of [TEXT_POLICY, NUMBER_POLICY, DELAY_POLICY, UNENFORCEABLE_POLICY, walkthroughPolicy()]) revision = await deploy(stack, admin, xml);
  }, 120_000);

  afterAll(() => stack?.stop(), 60_000);

  it('applies every modifier method of the language, in the decision’s order, to a copy of the event', async () => {
    const custos = new CustosClient(options());
    const original = employee();
    const snapshot = structuredClone(original);

    const decision = await custos.decide(original, { minPolicyRevision: revision });
    expect(decision.policyRevision).toBe(revision);
    expect(decision.modifiers.map((m) => `${m.name}:${m.engine[0].method}`)).toEqual([
      'user:append', 'user:shorten', 'user:replaceSubstring', 'user:substring', 'user:hash', 'user:password', 'user:anagram',
      'user:delete', 'user:replace', 'manager:replace', 'debug:delete',
      'user:round', 'user:add', 'user:multiply', 'user:divide', 'user:round', 'user:sign', 'user:round',
    ]);

    const { event: released, decision: used } = await custos.enforce(original);
    expect(original).toEqual(snapshot);
    expect(used?.eventAllowed).toBe(true);
    expect(released.parameters.map((p) => p.name)).toEqual(['user', 'manager', 'region']);
    const [user, manager, region] = released.parameters.map((p) => p.value);
    const notes = (defined(user, 'user').value as { notes: string }).notes;
    expect([...notes].sort().join('')).toBe([...'pending review'].sort().join(''));
    expect(user).toEqual({
      type: 'com.acme.User',
      isComplex: true,
      value: {
        id: 'user-eu',
        name: { firstName: 'Ann (masked)', lastName: 'L.' },
        email: 'someone@acme.example',
        phone: '+49 170',
        iban: createHash('sha256').update(IBAN).digest('hex'),
        password: '*******',
        notes,
        children: [{ name: 'Bo' }, { name: 'Cy' }],
        salary: 5200, // 5234.5 to the nearest 100
        bonus: 3000, // (1200 + 300) × 2: add before multiply
        age: 3, // 37 ÷ 10 = 3.7, then rounded down
        balance: -1,
        rating: 4.5, // 4.26 to the nearest 0.5
      },
    });
    expect(manager).toEqual({ value: '{"id":"m1","name":"(hidden)"}', type: 'com.acme.User', isComplex: true });
    expect(region).toEqual({ value: 'eu', type: 'java.lang.String', isComplex: false });
  });

  it('rejects an inhibited event with DecisionDeniedError after waiting out its delay', async () => {
    const slept: number[] = [];
    const custos = new CustosClient(options({ sleep: (ms) => (slept.push(ms), Promise.resolve()) }));
    const error = await custos.enforce(employee('export-employees'), { minPolicyRevision: revision }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DecisionDeniedError);
    expect((error as DecisionDeniedError).decision).toMatchObject({ eventAllowed: false, modifiers: [], delay: 1000, policyRevision: revision });
    expect((error as DecisionDeniedError).decision.id.identifier).toMatch(/^urn:decision:[0-9a-f-]{36}$/);
    expect(slept).toEqual([1000]);
  });

  it('awaits an allowing delay, or returns it with applyDelay: false', async () => {
    const slept: number[] = [];
    const custos = new CustosClient(options({ sleep: (ms) => (slept.push(ms), Promise.resolve()) }));
    const awaited = await custos.enforce(employee('download-report'), { minPolicyRevision: revision });
    expect(awaited).toMatchObject({ delayMs: 7_200_000, delayApplied: true });
    expect(slept).toEqual([7_200_000]);

    // With the default sleep: two hours would outlast the test, so resolving proves the delay was not waited.
    const returned = await new CustosClient(options()).enforce(employee('download-report'), { applyDelay: false });
    expect(returned).toMatchObject({ delayMs: 7_200_000, delayApplied: false });
    expect(returned.event).toEqual(employee('download-report'));
  });

  it('refuses to release an event whose modifier it cannot apply', async () => {
    const custos = new CustosClient(options());
    const unknown = await custos.enforce(employee('show-salary'), { minPolicyRevision: revision }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(UnsupportedModifierError);
    expect(unknown).toMatchObject({ method: 'encrypt', context: { index: 0, modifier: { name: 'user', expression: '$.salary' } } });
    const filter = await custos.enforce(employee('show-children')).catch((e: unknown) => e);
    expect(filter).toBeInstanceOf(JsonPathError);
    expect(filter).toMatchObject({ expression: "$.children[?@.name == 'Bo'].ssn" });
  });

  describe('the README', () => {
    const examples = readmeExamples();
    const env = () => ({
      CUSTOS_PDP_URL: pdpUrl(),
      CUSTOS_AUTH_URL: stack.auth.url,
      CUSTOS_CLIENT_ID: pep.id,
      CUSTOS_CLIENT_SECRET: pep.secret,
    });

    beforeAll(async () => {
      // The examples decide without Min-Policy-Revision: the pdp must have every deploy applied first.
      await new CustosClient(options()).decide(employee(), { minPolicyRevision: revision });
    });

    it('has the examples this test runs, and the AuthZEN one authzen-interop.test.ts runs', () => {
      expect([...examples.keys()]).toEqual(['quick-start', 'express', 'outcomes', 'batch', 'authzen']);
    });

    it('quick start: masks Ann and hides Mallory', async () => {
      const lines = await runExample(defined(examples.get('quick-start'), 'the quick-start example'), env());
      expect(lines).toHaveLength(2);
      expect(lines[0]).toBe('shown: {"id":"u1","name":{"firstName":"Ann (masked)"}}');
      expect(lines[1]).toMatch(/^hidden: Mallory urn:decision:[0-9a-f-]{36}$/);
    }, 60_000);

    it('express middleware: serves Ann masked, refuses Mallory with 403, and knows no u9', async () => {
      const port = await freePort();
      const app = await startExample(defined(examples.get('express'), 'the express example'), env(), port);
      try {
        const ann = await fetch(`http://127.0.0.1:${port}/employees/u1`);
        expect(ann.status).toBe(200);
        expect(await ann.json()).toEqual({ id: 'u1', name: { firstName: 'Ann (masked)' } });
        const mallory = await fetch(`http://127.0.0.1:${port}/employees/u2`);
        expect(mallory.status).toBe(403);
        expect(mallory.headers.get('content-type')).toBe('application/problem+json');
        expect(await mallory.json()).toMatchObject({ status: 403, code: 'event_inhibited', instance: expect.stringMatching(/^urn:decision:/) as unknown });
        expect((await fetch(`http://127.0.0.1:${port}/employees/u9`)).status).toBe(404);
        await waitFor(() => app.output().includes('custos refused /employees/u2: denied'), { what: 'the example to log the refusal' });
      } finally {
        await app.stop();
      }
    }, 60_000);

    it('outcomes: releases Ann, drops Mallory, and retries later when the pdp is down', async () => {
      expect(await runExample(defined(examples.get('outcomes'), 'the outcomes example'), env())).toEqual([
        'release after 0 ms: {"id":"u1","name":{"firstName":"Ann (masked)"}}',
        'drop: inhibited',
      ]);
      const down = `http://127.0.0.1:${await freePort()}`;
      expect(await runExample(defined(examples.get('outcomes'), 'the outcomes example'), { ...env(), CUSTOS_PDP_URL: down })).toEqual([
        'retry later: TransportError',
        'retry later: TransportError',
      ]);
    }, 60_000);

    it('batch: shows Ann and Bea masked and hides Mallory, in one request', async () => {
      expect(await runExample(defined(examples.get('batch'), 'the batch example'), env())).toEqual([
        'shown: {"id":"u1","name":{"firstName":"Ann (masked)"}}',
        'hidden: Mallory (denied)',
        'shown: {"id":"u1","name":{"firstName":"Bea (masked)"}}',
      ]);
    }, 60_000);
  });

  it('recovers from a 401 when the pdp stops trusting the cached token', async () => {
    const custos = new CustosClient(options({ monotonicRevisions: true }));
    await custos.decide(employee(), { minPolicyRevision: revision });

    // A signing key is compromised: a new key signs from now on and the old one is withdrawn.
    const oldKid = defined((await publishedKids(stack))[0], 'a published key');
    await clientsCli(stack, 'rotate-key', '--activate-in', '0');
    await clientsCli(stack, 'retire-key', oldKid);
    await waitFor(async () => !(await publishedKids(stack)).includes(oldKid), { timeoutMs: 20_000, what: 'the old key to leave the JWKS' });
    // A pdp that starts now knows only the new key, so the token the client holds is refused.
    const old = defined(stack.pdps[0], 'the pdp');
    await old.stop();
    const fresh = await stack.startPdp(old.port);
    expect(await rejectedDecisions(fresh.url)).toBe(0);

    const decision = await custos.decide(employee());
    expect(decision).toMatchObject({ eventAllowed: true, policyRevision: revision });
    expect(await rejectedDecisions(fresh.url)).toBe(1);
    const again = await custos.decide(employee());
    expect(again.eventAllowed).toBe(true);
    expect(await rejectedDecisions(fresh.url)).toBe(1);
  }, 90_000);
});
