import request from 'supertest';
import { createMetrics } from '@custos/service-kit';
import { createApp, SERVICE_NAME } from '../src/app';
import { readPapConfig } from '../src/config';
import { startHarness, timerXml, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const add = (xml: string) => request(h.app).post('/ws/timer').set('Authorization', h.bearer()).set('Content-Type', 'application/xml').send(xml);
const schedule = (app: typeof h.app, id: string, auth = h.bearer()) => request(app).get(`/ws/timer/${id}/schedule`).set('Authorization', auth);

const DAY = 24 * 60 * 60 * 1000;

/** The hour and minute of `instant` on the wall clock of `timeZone`, as `HH:MM`. */
const wallClock = (instant: string, timeZone: string) =>
  new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(new Date(instant));

describe('GET /ws/timer/{id}/schedule', () => {
  test('the next five fire times of a nightly timer, at 02:00 UTC one day apart, from now on', async () => {
    expect((await add(timerXml('urn:timer:acme:nightly'))).status).toBe(201);
    const before = Date.now();
    const res = await schedule(h.app, 'urn:timer:acme:nightly');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.body as { id: { identifier: string }; cron: string; timeZone: string; nextFireTimes: string[] };
    expect(body.id).toEqual({ identifier: 'urn:timer:acme:nightly' });
    expect(body.cron).toBe('0 0 2 * * ?');
    expect(body.timeZone).toBe('UTC');
    expect(body.nextFireTimes).toHaveLength(5);
    for (const t of body.nextFireTimes) expect(wallClock(t, 'UTC')).toBe('02:00:00');
    const first = Date.parse(body.nextFireTimes[0] ?? '');
    expect(first).toBeGreaterThan(before);
    expect(first - before).toBeLessThanOrEqual(DAY);
    const gaps = body.nextFireTimes.slice(1).map((t, i) => Date.parse(t) - Date.parse(body.nextFireTimes[i] ?? ''));
    expect(gaps).toEqual([DAY, DAY, DAY, DAY]);
  });

  test("in pap's POLICY_TIMEZONE: weekday mornings at 07:00 in Berlin", async () => {
    expect((await add(timerXml('urn:timer:acme:weekdays', '0 0 7 ? * MON-FRI'))).status).toBe(201);
    const { timeZone } = readPapConfig({ POLICY_TIMEZONE: 'Europe/Berlin' });
    expect(() => readPapConfig({ POLICY_TIMEZONE: 'Mars/Olympus' })).toThrow('POLICY_TIMEZONE must be an IANA time zone, got `Mars/Olympus`');
    const berlin = createApp({ ...h.deps, metrics: createMetrics(SERVICE_NAME, false), timeZone });
    const body = (await schedule(berlin, 'urn:timer:acme:weekdays')).body as { timeZone: string; nextFireTimes: string[] };
    expect(body.timeZone).toBe('Europe/Berlin');
    expect(body.nextFireTimes).toHaveLength(5);
    for (const t of body.nextFireTimes) {
      expect(wallClock(t, 'Europe/Berlin')).toBe('07:00:00');
      expect(new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Berlin', weekday: 'short' }).format(new Date(t))).toMatch(/^(Mon|Tue|Wed|Thu|Fri)$/);
    }
  });

  test('a one-shot timer has one fire time left', async () => {
    expect((await add(timerXml('urn:timer:acme:once', '0 0 12 24 12 ? 2099'))).status).toBe(201);
    const body = (await schedule(h.app, 'urn:timer:acme:once')).body as { nextFireTimes: string[] };
    expect(body.nextFireTimes).toEqual(['2099-12-24T12:00:00.000Z']);
  });

  test('404 for an unknown timer, 400 for a bad id, 403 for another solution, 401 without a token', async () => {
    expect((await schedule(h.app, 'urn:timer:acme:nope')).status).toBe(404);
    expect((await schedule(h.app, 'not-a-urn')).status).toBe(400);
    expect((await schedule(h.app, 'urn:timer:globex:nightly')).status).toBe(403);
    expect((await request(h.app).get('/ws/timer/urn:timer:acme:nightly/schedule')).status).toBe(401);
  });
});
