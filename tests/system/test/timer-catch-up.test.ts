import { Client } from 'pg';
import { nextFireTime, loadTimer } from '@custos/policy-engine';
import { call, startStack, TEST_NATS_URL, waitFor, type RunningService, type Stack } from '@custos/test-kit';

/**
 * Issue 14: a timer tick due while no pdp process ran fires once, late, when one comes back (PDP_TIMER_CATCH_UP
 * defaults to `last`), and only once however many replicas come back.
 */
const TIMER = 'urn:timer:acme:catch-up';
const CRON = '*/3 * * * * ?';
const xml = `<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer" id="${TIMER}" cron="${CRON}"><event action="urn:action:acme:beat"/></timer>`;

describe('timer catch-up with real replicas', () => {
  let stack: Stack;
  let token: string;
  let db: Client;

  beforeAll(async () => {
    stack = await startStack({ natsUrl: TEST_NATS_URL, replicas: 2 });
    token = await stack.adminToken();
    db = new Client({ connectionString: stack.database.url });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
  }, 60_000);

  const loaded = loadTimer(xml);
  const nextTick = (after: number) => (loaded.ok ? (nextFireTime(loaded.timer, new Date(after), 'UTC')?.getTime() ?? Infinity) : Infinity);
  const ticks = async () =>
    (await db.query<{ scheduled_at: string }>('SELECT scheduled_at FROM pdp.timer_ticks WHERE timer_id = $1 AND done_at IS NOT NULL ORDER BY scheduled_at', [TIMER])).rows.map(
      (row) => Number(row.scheduled_at),
    );
  const firedLines = (pdp: RunningService) =>
    pdp
      .output()
      .split('\n')
      .filter((line) => line.includes('"timer fired"') && line.includes(TIMER))
      .map((line) => JSON.parse(line) as { scheduledAt: string; how?: string });

  it('fires the last tick missed while every pdp was stopped once, on the first replica back', async () => {
    expect(loaded.ok).toBe(true);
    expect((await call('POST', `${stack.pap.url}/ws/timer`, { token, xml })).status).toBe(201);
    expect((await call('POST', `${stack.pap.url}/ws/timer/${TIMER}/deploy`, { token })).body).toBe(true);
    await waitFor(async () => (await ticks()).length >= 1, { timeoutMs: 15_000, what: 'a first tick' });

    const ports = stack.pdps.map((pdp) => pdp.port);
    await Promise.all(stack.pdps.map((pdp) => pdp.stop()));
    const lastBefore = Math.max(...(await ticks()));
    const missed = nextTick(Math.max(lastBefore, Date.now()));
    await waitFor(() => Date.now() > missed + 200, { timeoutMs: 5000, what: 'a tick passing with no pdp running' });
    expect(await ticks()).not.toContain(missed);

    const startedAt = Date.now();
    const [first, second] = await Promise.all(ports.map((port) => stack.startPdp(port)));
    if (first === undefined || second === undefined) throw new Error('two replicas restart');
    stack.pdps.splice(0, stack.pdps.length, first, second);
    // The last tick due before the restart, not yet claimed, fires exactly once across both replicas.
    let expected = nextTick(lastBefore);
    while (nextTick(expected) <= startedAt) expected = nextTick(expected);
    await waitFor(async () => (await ticks()).includes(expected), { timeoutMs: 15_000, what: 'the caught-up tick' });
    const caughtUp = () => [first, second].flatMap((pdp) => firedLines(pdp).filter((line) => line.how === 'caught-up'));
    // The log line follows the row (logs are written asynchronously).
    await waitFor(() => caughtUp().length >= 1, { timeoutMs: 5000, what: 'the caught-up tick in the log' });
    expect(caughtUp().map((line) => Date.parse(line.scheduledAt))).toEqual([expected]);
    // Ticks on time follow, each once.
    await waitFor(async () => (await ticks()).filter((at) => at > startedAt).length >= 2, { timeoutMs: 15_000, what: 'ticks on time after the restart' });
    const all = await ticks();
    expect(new Set(all).size).toBe(all.length);
    expect(caughtUp()).toHaveLength(1);
  }, 90_000);
});
