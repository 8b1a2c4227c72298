import type { Express } from 'express';
import request from 'supertest';
import { basicAuthorization, form, testEnv, type TestEnv } from './helpers';
import { acme, createClients, expectOAuthError, GRANT, odd, plus, TOKEN } from './token-clients';

describe('POST /oauth/token — rate limit of failed attempts', () => {
  let limited: Express;
  let limitedEnv: TestEnv;
  let now = Date.now();
  const SLOW_DOWN_MS = 1234;
  const pauses: number[] = [];

  beforeAll(async () => {
    // A database of its own: failure counts are shared through the database (as between replicas), and the
    // failures the other tests make on purpose must not count here.
    limitedEnv = await testEnv();
    await createClients(limitedEnv.pool);
    // Addresses come from X-Forwarded-For (trusted from loopback), so one test can act as many sources.
    limited = await limitedEnv.app({
      rateLimit: { limit: 3, windowMs: 60_000, delayMs: SLOW_DOWN_MS },
      clock: () => now,
      // Slowed attempts are recorded, not waited for.
      pause: async (ms) => {
        pauses.push(ms);
      },
      config: { bootstrap: undefined, trustProxy: 'loopback' },
    });
  });

  afterAll(async () => {
    await limitedEnv.close();
  });

  const from = (address: string, body: string, headers: Record<string, string> = {}) => {
    let call = request(limited).post(TOKEN).type('form').set('X-Forwarded-For', address);
    for (const [name, value] of Object.entries(headers)) call = call.set(name, value);
    return call.send(body);
  };

  it('per client id and address: after 3 failures, that client id is refused from that address until the window ends', async () => {
    for (let i = 1; i <= 3; i++) {
      expectOAuthError(await from('10.0.0.1', form({ ...GRANT, client_id: acme.id, client_secret: `wrong-${i}` })), 401, 'invalid_client');
    }
    // Even the right secret, by either method, from that address.
    const refused = await from('10.0.0.1', form({ ...GRANT, client_id: acme.id, client_secret: acme.secret }));
    expectOAuthError(refused, 429, 'too_many_requests');
    expect(refused.headers['retry-after']).toBe('60');
    const byBasic = await from('10.0.0.1', form(GRANT), { Authorization: basicAuthorization(acme.id, acme.secret) });
    expectOAuthError(byBasic, 429, 'too_many_requests');

    // From another address the right secret passes: slowed (the id failed 3 times), never refused.
    const pausesBefore = pauses.length;
    expect((await from('10.0.0.99', form({ ...GRANT, client_id: acme.id, client_secret: acme.secret }))).status).toBe(200);
    expect(pauses.slice(pausesBefore)).toEqual([SLOW_DOWN_MS]);

    now += 30_000;
    expect((await from('10.0.0.1', form({ ...GRANT, client_id: acme.id, client_secret: acme.secret }))).headers['retry-after']).toBe('30');
    now += 30_000;
    expect((await from('10.0.0.1', form({ ...GRANT, client_id: acme.id, client_secret: acme.secret }))).status).toBe(200);
  });

  it('per client id from many addresses: every attempt is slowed by the same bounded wait, none refused', async () => {
    const pausesBefore = pauses.length;
    // Two failures from each address: below the per-address limits, 8 failures of the id in all.
    for (let i = 1; i <= 8; i++) {
      expectOAuthError(await from(`10.3.0.${Math.ceil(i / 2)}`, form({ ...GRANT, client_id: plus.id, client_secret: `wrong-${i}` })), 401, 'invalid_client');
    }
    // The first 3 failures were not slowed; every attempt after them is, wrong or right, by the same wait.
    expect(pauses.slice(pausesBefore)).toEqual(Array<number>(5).fill(SLOW_DOWN_MS));
    expect((await from('10.3.1.1', form({ ...GRANT, client_id: plus.id, client_secret: plus.secret }))).status).toBe(200);
    expect((await from('10.3.0.1', form({ ...GRANT, client_id: plus.id, client_secret: plus.secret }))).status).toBe(200);
    expect(pauses.slice(pausesBefore)).toEqual(Array<number>(7).fill(SLOW_DOWN_MS));
    // Another client id is not slowed.
    expect((await from('10.3.1.1', form({ ...GRANT, client_id: odd.id, client_secret: odd.secret }))).status).toBe(200);
    expect(pauses.slice(pausesBefore)).toHaveLength(7);
    const metrics = await request(limited).get('/metrics');
    // One count per recorded pause, the first test's included.
    expect(metrics.text).toMatch(new RegExp(`auth_slowed_sign_ins_total\\{[^}]*\\} ${pauses.length}\\n`));
    now += 60_000;
  });

  it('per source address: after 3 failures (any client ids), that address is refused, others are not', async () => {
    for (let i = 1; i <= 3; i++) {
      expectOAuthError(await from('192.0.2.7', form({ ...GRANT, client_id: `guess-${i}`, client_secret: 'x' })), 401, 'invalid_client');
    }
    const refused = await from('192.0.2.7', form({ ...GRANT, client_id: odd.id, client_secret: odd.secret }));
    expectOAuthError(refused, 429, 'too_many_requests');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await from('192.0.2.8', form({ ...GRANT, client_id: odd.id, client_secret: odd.secret }))).status).toBe(200);
  });

  it('parallel guesses cannot slip past the limit', async () => {
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) => from('203.0.113.1', form({ ...GRANT, client_id: plus.id, client_secret: `guess-${i}` }))),
    );
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => status === 401)).toHaveLength(3);
    expect(statuses.filter((status) => status === 429)).toHaveLength(9);
  });

  it('successful requests do not count', async () => {
    for (let i = 0; i < 5; i++) {
      expect((await from('198.51.100.2', form({ ...GRANT, client_id: odd.id, client_secret: odd.secret }))).status).toBe(200);
    }
    expectOAuthError(await from('198.51.100.2', form({ ...GRANT, client_id: 'x', client_secret: 'y' })), 401, 'invalid_client');
  });

  it('requests refused for their form (not their credentials) do not count', async () => {
    for (let i = 0; i < 5; i++) expectOAuthError(await from('198.51.100.1', form({ client_id: odd.id })), 400, 'invalid_request');
    expect((await from('198.51.100.1', form({ ...GRANT, client_id: odd.id, client_secret: odd.secret }))).status).toBe(200);
  });
});
