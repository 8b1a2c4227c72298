import { call, startPostgresRelay, startStack, TEST_NATS_URL, waitFor, type PostgresRelay, type RunningService, type Stack } from '@custos/test-kit';
import { event, inhibitAll } from './policies';

/** Each way a server goes away (test-kit's relay): a fast shutdown's FATAL, a reset, silence. */
const LOSSES = ['shutdown', 'reset', 'silence'] as const;
const RUN = `r${Date.now().toString(36)}`;
const COUNTED = `counted-${RUN}`;
const PURE = `closed-${RUN}`;
/** Never reached: every inhibit of COUNTED is its history failing closed. */
const COUNTED_POLICY = `<policy xmlns="http://www.mydata-control.de/4.0/mydataLanguage" xmlns:constant="http://www.mydata-control.de/4.0/constant" id="urn:policy:acme:${COUNTED}">
  <mechanism event="urn:action:acme:${COUNTED}">
    <if><greater><count><eventOccurrence event="urn:action:acme:${COUNTED}"/><when fixedTime="always"/></count><constant:number value="1000000"/></greater>
      <then><inhibit reason="never"/></then></if>
    <else><allow/></else>
  </mechanism>
</policy>`;

interface Tally {
  answered: number;
  allowed: number;
  inhibited: number;
  /** Anything but a 200 (a 500, a refused connection: the pdp gone), with what it was. */
  failures: string[];
}

/**
 * Issue 23: during a PostgreSQL failover every pdp of the clustered compose form stopped listening for ~90 s. The
 * cause: a pool over several servers (service-kit, `target_session_attrs=read-write`) asks every new connection
 * whether it reached the primary, and a connection whose server went away during that question — reset, or silent
 * until the pool's connection timeout cut it — emitted `error` with nobody listening: the process ended (and its
 * restart waited for a primary). During a failover that is when fresh connections are made, and on a loaded machine
 * the question itself can outlast the timeout. Here a pdp process reaches PostgreSQL through a relay (test-kit) that
 * plays the server going away in each of three ways (a fast shutdown's FATAL, a reset, silence), cutting every
 * connection at once and each new one at its first query. Under decisions the pdp keeps running and answering pure
 * decisions; history decisions fail closed, never with an error, and are recorded again once the server is back.
 */
describe('a pdp whose database server goes away and comes back', () => {
  let stack: Stack;
  let relay: PostgresRelay;
  let pdp: RunningService;
  let token: string;

  beforeAll(async () => {
    stack = await startStack({ natsUrl: TEST_NATS_URL, replicas: 0 });
    const direct = new URL(stack.database.url);
    relay = await startPostgresRelay({ host: direct.hostname, port: Number(direct.port || 5432) });
    token = await stack.adminToken();
    const pap = (method: string, path: string, xml?: string) => call(method, `${stack.pap.url}${path}`, { token, ...(xml === undefined ? {} : { xml }) });
    for (const [id, xml] of [
      [`urn:policy:acme:${COUNTED}`, COUNTED_POLICY],
      [`urn:policy:acme:${PURE}`, inhibitAll('acme', PURE, PURE)],
    ] as const) {
      expect((await pap('POST', '/ws/policy', xml)).status).toBe(201);
      expect((await pap('POST', `/ws/policy/${encodeURIComponent(id)}/deploy`)).status).toBe(200);
    }
    // Only the pdp goes through the relay; pap and auth keep the server (they answer its snapshot and its token).
    const url = new URL(relay.through(stack.database.url));
    url.searchParams.set('target_session_attrs', 'read-write');
    pdp = await stack.startPdp(undefined, { DATABASE_URL: url.toString(), PDP_HISTORY_TIMEOUT_MS: '1000', LOG_LEVEL: 'warn' });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await relay?.close();
  }, 60_000);

  it('keeps answering pure decisions, fails history decisions closed, and records again when the server is back', async () => {
    const tallies = { pure: tally(), history: tally() };
    let running = true;
    const loop = (action: string, into: Tally) =>
      (async () => {
        while (running) {
          try {
            const answer = await call('POST', `${pdp.url}/event`, { token, json: event('acme', action) });
            if (answer.status !== 200) into.failures.push(`status ${answer.status}: ${JSON.stringify(answer.body)}`);
            else if ((answer.body as { eventAllowed: boolean }).eventAllowed) into.allowed++;
            else into.inhibited++;
            into.answered++;
          } catch (error) {
            into.failures.push(String((error as { cause?: unknown }).cause ?? error));
            // A pdp that is gone refuses at once: no need to spin on it.
            await new Promise((resolve) => setImmediate(resolve));
          }
        }
      })();
    const loops = [loop(PURE, tallies.pure), loop(COUNTED, tallies.history), loop(COUNTED, tallies.history)];
    try {
      await waitFor(() => tallies.history.allowed >= 20 && tallies.pure.answered >= 20, { timeoutMs: 30_000, what: 'decisions before the server goes' });
      for (const how of LOSSES) {
        const before = { pure: tallies.pure.answered, closed: tallies.history.inhibited, lost: relay.lostAtFirstQuery() };
        relay.fail(how);
        // The pdp kept trying new connections, and the relay cut them at their first query, many times over.
        await waitFor(() => relay.lostAtFirstQuery() >= before.lost + 10 || !alive(pdp), {
          timeoutMs: 60_000,
          what: `10 connections of the pdp lost at their first query (${how})`,
        });
        await waitFor(() => tallies.pure.answered >= before.pure + 50 || !alive(pdp), { timeoutMs: 30_000, what: `50 pure decisions meanwhile (${how})` });
        if (!alive(pdp)) throw new Error(`the pdp ended (${how}; exit ${pdp.process.exitCode}, ${pdp.process.signalCode}):\n${pdp.output().slice(-3000)}`);
        expect(tallies.history.inhibited).toBeGreaterThan(before.closed);

        relay.recover();
        const allowed = tallies.history.allowed;
        await waitFor(() => tallies.history.allowed >= allowed + 20, { timeoutMs: 30_000, what: `20 history decisions recorded after the server came back (${how})` });
      }
    } finally {
      running = false;
      await Promise.all(loops);
    }
    const output = pdp.output();
    expect({ alive: alive(pdp), pure: tallies.pure.failures, history: tallies.history.failures }).toEqual({ alive: true, pure: [], history: [] });
    // Every pure decision was the deployed inhibit; the history failed closed, never open.
    expect(tallies.pure.allowed).toBe(0);
    expect(output).not.toMatch(/Unhandled|uncaught|ERR_UNHANDLED/i);
  }, 180_000);
});

function alive(service: RunningService): boolean {
  return service.process.exitCode === null && service.process.signalCode === null;
}

function tally(): Tally {
  return { answered: 0, allowed: 0, inhibited: 0, failures: [] };
}
