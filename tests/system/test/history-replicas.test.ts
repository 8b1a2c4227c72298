import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, startStack, TEST_NATS_URL, waitFor, type RunningService, type Stack } from '@custos/test-kit';
import { event } from './policies';

/**
 * Usage control with memory and reach across three pdp processes (issue 4): a limit "at most N" under concurrent
 * load on every replica allows exactly N, history recorded on one replica is counted on the others, PIPs and PXPs
 * registered at pap are called by every replica, and a timer fires exactly once per tick.
 */
const NS = [
  'xmlns="http://www.mydata-control.de/4.0/mydataLanguage"',
  'xmlns:constant="http://www.mydata-control.de/4.0/constant"',
  'xmlns:event="http://www.mydata-control.de/4.0/event"',
  'xmlns:parameter="http://www.mydata-control.de/4.0/parameter"',
  'xmlns:pip="http://www.mydata-control.de/4.0/pip"',
].join(' ');
const RUN = `r${Date.now().toString(36)}`;
const A = (name: string) => `urn:action:acme:${name}-${RUN}`;
const LIMIT = 5;

/** A PIP or PXP on 127.0.0.1: answers `POST /execute` with `answer(body)` and keeps every body. */
class Endpoint {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever the pdp sent, field by field
  readonly bodies: any[] = [];
  private server: Server | undefined;
  url = '';

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the answer function reads the body the pdp sent
  constructor(private readonly answer: (body: any) => unknown) {}

  async start(): Promise<this> {
    this.server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      this.bodies.push(body);
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify(this.answer(body)));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

describe('history, PIPs, PXPs and timers across three pdp replicas', () => {
  let stack: Stack;
  let token: string;
  let pip: Endpoint;
  let pxp: Endpoint;

  beforeAll(async () => {
    stack = await startStack({ natsUrl: TEST_NATS_URL, replicas: 3 });
    token = await stack.adminToken();
    pip = await new Endpoint((body) => ({ value: body.parameters[0]?.value.value === 'ann' ? 'admin' : 'guest', type: 'java.lang.String', isComplex: false })).start();
    pxp = await new Endpoint(() => true).start();
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await pip?.stop();
    await pxp?.stop();
  }, 60_000);

  const pap = (method: string, path: string, body?: { json?: unknown; xml?: string }) => call(method, `${stack.pap.url}${path}`, { token, ...body });

  async function deploy(kind: 'policy' | 'timer', id: string, xml: string): Promise<number> {
    expect((await pap('POST', `/ws/${kind}`, { xml })).status).toBe(201);
    const deployed = await pap('POST', `/ws/${kind}/${id}/deploy`);
    expect(deployed.body).toBe(true);
    return Number(deployed.headers.get('policy-revision'));
  }

  const decide = (pdp: RunningService, action: string, parameters: Array<{ name: string; value: unknown }> = [], revision?: number, path = '/event') =>
    call('POST', `${pdp.url}${path}`, {
      token,
      json: event('acme', action.split(':')[3]!, parameters),
      headers: revision === undefined ? {} : { 'Min-Policy-Revision': String(revision) },
    });

  it(`allows exactly ${LIMIT} of many concurrent events across the replicas for "at most ${LIMIT}"`, async () => {
    const id = `urn:policy:acme:limit-${RUN}`;
    const revision = await deploy(
      'policy',
      id,
      `<policy ${NS} id="${id}">
        <mechanism event="${A('download')}">
          <if><greater><count><eventOccurrence event="${A('download')}"/><when fixedTime="always"/></count><constant:number value="${LIMIT}"/></greater>
            <then><inhibit reason="limit reached"/></then></if>
          <else><allow/></else>
        </mechanism>
      </policy>`,
    );
    for (const pdp of stack.pdps) expect((await decide(pdp, A('warm-up'), [], revision)).status).toBe(200);
    // 25 clients per replica, all at once.
    const answers = await Promise.all(Array.from({ length: 75 }, (_, i) => decide(stack.pdps[i % 3]!, A('download'))));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    const allowedBy = stack.pdps.map((_, r) => answers.filter((answer, i) => i % 3 === r && answer.body.eventAllowed).length);
    expect(allowedBy.reduce((sum, n) => sum + n, 0)).toBe(LIMIT);
    // Every attempt was recorded, and every replica sees all of them.
    for (const pdp of stack.pdps) {
      const explained = await decide(pdp, A('download'), [], undefined, '/event/explain');
      expect(explained.body.explanation[0].history[0].count).toBe(75 + 1);
      expect(explained.body.eventAllowed).toBe(false);
    }
  }, 60_000);

  it('keeps a daily limit per user exact over waves of concurrent events, every replica remembering counts', async () => {
    const id = `urn:policy:acme:per-user-${RUN}`;
    const perUser = 7;
    const revision = await deploy(
      'policy',
      id,
      `<policy ${NS} id="${id}">
        <mechanism event="${A('fetch')}">
          <if><greater><count><eventOccurrence event="${A('fetch')}"><parameter:string name="user"><event:string eventParameter="user" default=""/></parameter:string></eventOccurrence><when fixedTime="today"/></count><constant:number value="${perUser}"/></greater>
            <then><inhibit reason="daily limit"/></then></if>
          <else><allow/></else>
        </mechanism>
      </policy>`,
    );
    for (const pdp of stack.pdps) expect((await decide(pdp, A('warm-up'), [], revision)).status).toBe(200);
    const users = ['u0', 'u1', 'u2'];
    const allowed = new Map(users.map((user) => [user, 0]));
    const replica = (i: number) => stack.pdps[i % stack.pdps.length] as RunningService;
    // Three waves of 45 at once over the replicas: the later waves are decided with counts the replicas remember.
    for (let wave = 0; wave < 3; wave++) {
      const sent = Array.from({ length: 45 }, (_, i) => users[i % users.length] as string);
      const answers = await Promise.all(sent.map((user, i) => decide(replica(i + wave), A('fetch'), [{ name: 'user', value: user }])));
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      answers.forEach((answer, i) => {
        const user = sent[i] as string;
        if (answer.body.eventAllowed) allowed.set(user, (allowed.get(user) ?? 0) + 1);
      });
    }
    expect([...allowed.values()]).toEqual([perUser, perUser, perUser]);
    // Each replica counts all 45 events of a user (3 waves × 15), plus the explained one.
    for (const pdp of stack.pdps) {
      const explained = await decide(pdp, A('fetch'), [{ name: 'user', value: 'u1' }], undefined, '/event/explain');
      expect(explained.body.explanation[0].history[0].count).toBe(45 + 1);
    }
  }, 60_000);

  it('asks a PIP and runs a PXP registered at pap, from every replica', async () => {
    for (const [type, url, method] of [
      ['PIP', pip.url, 'urn:info:acme:role'],
      ['PXP', pxp.url, A('notify')],
    ] as const) {
      const registered = await pap('POST', '/ws/component', {
        json: {
          id: { componentType: type, identifier: `urn:component:acme:${type.toLowerCase()}:${RUN}` },
          urls: [url],
          componentInterfaces: [{ type: 'InterfaceDescription', methodName: method, returnType: 'java.lang.Object', parameters: [] }],
        },
      });
      expect(registered.body).toBe(true);
    }
    const id = `urn:policy:acme:roles-${RUN}`;
    const revision = await deploy(
      'policy',
      id,
      `<policy ${NS} id="${id}">
        <mechanism event="${A('open')}">
          <if><equals><pip:string method="urn:info:acme:role" default="nobody" ttl="1m"><parameter:string name="user"><event:string eventParameter="user" default=""/></parameter:string></pip:string><constant:string value="admin"/></equals>
            <then><allow/><execute action="${A('notify')}"><parameter:string name="user"><event:string eventParameter="user" default=""/></parameter:string></execute></then></if>
          <else><inhibit/></else>
        </mechanism>
      </policy>`,
    );
    for (const pdp of stack.pdps) {
      expect((await decide(pdp, A('open'), [{ name: 'user', value: 'ann' }], revision)).body.eventAllowed).toBe(true);
      expect((await decide(pdp, A('open'), [{ name: 'user', value: 'bob' }], revision)).body.eventAllowed).toBe(false);
    }
    // Each replica has its own ttl cache: one PIP call per replica and user.
    expect(pip.bodies).toHaveLength(6);
    await waitFor(() => pxp.bodies.length === 3, { what: 'one execute per allowed decision' });
    expect(pxp.bodies.every((body) => body.id.urn === A('notify') && body.parameters[0].value.value === 'ann')).toBe(true);
  }, 60_000);

  it('fires a timer once per tick with three replicas running', async () => {
    const timer = `urn:timer:acme:beat-${RUN}`;
    const policyId = `urn:policy:acme:on-beat-${RUN}`;
    await deploy(
      'policy',
      policyId,
      `<policy ${NS} id="${policyId}">
        <mechanism event="${A('beat')}">
          <if><constant:true/><then><allow/></then></if>
          <execute action="${A('notify')}"><parameter:string name="user" value="timer"/></execute>
        </mechanism>
      </policy>`,
    );
    const before = pxp.bodies.length;
    const revision = await deploy(
      'timer',
      timer,
      `<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer" id="${timer}" cron="* * * * * ?"><event action="${A('beat')}"/></timer>`,
    );
    for (const pdp of stack.pdps) expect((await decide(pdp, A('warm-up'), [], revision)).status).toBe(200);
    const fired = () =>
      stack.pdps.flatMap((pdp) =>
        pdp
          .output()
          .split('\n')
          .filter((line) => line.includes('"timer fired"') && line.includes(timer))
          .map((line) => JSON.parse(line) as { scheduledAt: string }),
      );
    await waitFor(() => fired().length >= 4, { timeoutMs: 20_000, what: 'four timer ticks' });
    const revoked = await pap('GET', `/ws/timer/${timer}/revoke`);
    expect(revoked.body).toBe(true);
    for (const pdp of stack.pdps) await decide(pdp, A('warm-up'), [], Number(revoked.headers.get('policy-revision')));
    // Each fired tick was decided and ran its execute exactly once (ticks still in flight at the revoke included).
    const timerExecutes = () => pxp.bodies.slice(before).filter((body) => body.parameters[0].value.value === 'timer').length;
    await waitFor(() => timerExecutes() === fired().length, { what: 'one execute per fired tick' });
    const ticks = fired().map((line) => line.scheduledAt);
    // Once per tick: no scheduled time fired twice, on one replica or across them; ticks are whole seconds.
    expect(new Set(ticks).size).toBe(ticks.length);
    expect(ticks.every((tick) => tick.endsWith('.000Z'))).toBe(true);
  }, 60_000);
});
