import { COUNT_CAP, FailureLimiter, type FailureLimiterOptions, type LimitedKey } from '../src/ratelimit/failure-limiter';
import { testEnv, type TestEnv } from './helpers';

/** The limiter against a real auth schema; each test counts under keys of its own. */
let env: TestEnv;

beforeAll(async () => {
  env = await testEnv();
});

afterAll(async () => {
  await env.close();
});

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** A limiter whose keys all have the limit `limit` (the tests name keys by their text alone). */
function limiterOf({ limit = 10, ...options }: FailureLimiterOptions & { limit?: number }) {
  const limiter = new FailureLimiter(env.pool, options);
  const limited = (keys: string[]): LimitedKey[] => keys.map((key) => ({ key, limit }));
  return {
    attempt: async (keys: string[]) => {
      const outcome = await limiter.attempt(limited(keys));
      return outcome.admitted ? { admitted: true } : outcome;
    },
    retryAfter: (keys: string[]) => limiter.retryAfter(limited(keys)),
    forgive: (keys: string[]) => limiter.forgive(keys),
    raw: limiter,
  };
}
type Limiter = ReturnType<typeof limiterOf>;
/** One failed attempt of `key` as the token endpoint makes it (counted unless refused). */
const fail = (limiter: Limiter, key: string) => limiter.attempt([key]);
const retryAfter = (limiter: Limiter, key: string) => limiter.retryAfter([key]);
const rows = async (prefix: string) =>
  Number((await env.pool.query<{ n: string }>('SELECT count(*) AS n FROM auth.failure_windows WHERE key LIKE $1', [`${prefix}%`])).rows[0]?.n);

describe('FailureLimiter', () => {
  it('allows `limit` failures, then refuses until the window ends', async () => {
    const time = clock();
    const limiter = limiterOf({ limit: 3, windowMs: 60_000, clock: time.now });
    for (let i = 0; i < 3; i++) {
      expect(await retryAfter(limiter, 'limit:a')).toBeUndefined();
      expect(await fail(limiter, 'limit:a')).toEqual({ admitted: true });
    }
    expect(await retryAfter(limiter, 'limit:a')).toBe(60);
    expect(await fail(limiter, 'limit:a')).toEqual({ admitted: false, retryAfterSeconds: 60 });
    time.advance(20_500);
    expect(await retryAfter(limiter, 'limit:a')).toBe(40);
    time.advance(39_000);
    expect(await retryAfter(limiter, 'limit:a')).toBe(1);
    time.advance(500);
    expect(await retryAfter(limiter, 'limit:a')).toBeUndefined();
  });

  it('counts keys separately', async () => {
    const time = clock();
    const limiter = limiterOf({ limit: 2, clock: time.now });
    await fail(limiter, 'sep:a');
    await fail(limiter, 'sep:a');
    await fail(limiter, 'sep:b');
    expect(await retryAfter(limiter, 'sep:a')).toBeGreaterThan(0);
    expect(await retryAfter(limiter, 'sep:b')).toBeUndefined();
  });

  it('counts nothing when one of the keys of an attempt is at its limit', async () => {
    const time = clock();
    const limiter = limiterOf({ limit: 2, clock: time.now });
    await fail(limiter, 'both:client');
    await fail(limiter, 'both:client');
    expect(await limiter.attempt(['both:client', 'both:source'])).toEqual({ admitted: false, retryAfterSeconds: 60 });
    // The source was not charged for the refused attempt: it still has both of its failures.
    expect(await limiter.attempt(['both:source'])).toEqual({ admitted: true });
    expect(await limiter.attempt(['both:source'])).toEqual({ admitted: true });
    expect(await retryAfter(limiter, 'both:source')).toBe(60);
  });

  it('forgets failures of a window that has ended', async () => {
    const time = clock();
    const limiter = limiterOf({ limit: 2, windowMs: 1000, clock: time.now });
    await fail(limiter, 'forget:a');
    time.advance(1000);
    await fail(limiter, 'forget:a');
    expect(await retryAfter(limiter, 'forget:a')).toBeUndefined();
    await fail(limiter, 'forget:a');
    expect(await retryAfter(limiter, 'forget:a')).toBe(1);
  });

  it('stays bounded: windows that ended are deleted', async () => {
    const time = clock(5_000_000);
    const limiter = limiterOf({ limit: 1, windowMs: 1000, clock: time.now });
    for (let i = 0; i < 10; i++) await fail(limiter, `bounded:old-${i}`);
    expect(await rows('bounded:')).toBe(10);
    time.advance(1000);
    await fail(limiter, 'bounded:new');
    expect(await rows('bounded:')).toBe(1);
    for (let i = 0; i < 50; i++) await fail(limiter, `bounded:k-${i}`);
    expect(await retryAfter(limiter, 'bounded:k-49')).toBe(1);
  });

  it('forgives a failure taken back, never below zero', async () => {
    const time = clock();
    const limiter = limiterOf({ limit: 2, clock: time.now });
    await fail(limiter, 'forgive:a');
    await fail(limiter, 'forgive:a');
    expect(await retryAfter(limiter, 'forgive:a')).toBeGreaterThan(0);
    await limiter.forgive(['forgive:a']);
    expect(await retryAfter(limiter, 'forgive:a')).toBeUndefined();
    await limiter.forgive(['forgive:a']);
    await limiter.forgive(['forgive:a']);
    await fail(limiter, 'forgive:a');
    expect(await retryAfter(limiter, 'forgive:a')).toBeUndefined();
    await limiter.forgive(['forgive:never-failed']);
    expect(await retryAfter(limiter, 'forgive:never-failed')).toBeUndefined();
  });

  it('holds in total for limiters of several replicas on one database, also for parallel attempts', async () => {
    const time = clock();
    const replicas = [limiterOf({ limit: 5, clock: time.now }), limiterOf({ limit: 5, clock: time.now }), limiterOf({ limit: 5, clock: time.now })];
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, i) => replicas[i % 3]?.attempt(['shared:a'])));
    expect(outcomes.filter((outcome) => outcome?.admitted)).toHaveLength(5);
  });

  it('rejects nonsensical bounds', async () => {
    await expect(limiterOf({ limit: 0 }).attempt(['bounds:a'])).rejects.toThrow('limits must be positive');
    expect(() => limiterOf({ windowMs: -1 })).toThrow();
  });

  it('keys of one attempt have limits of their own; an unlimited key counts and never refuses', async () => {
    const time = clock();
    const limiter = new FailureLimiter(env.pool, { clock: time.now });
    const keys = [
      { key: 'own:tight', limit: 2 },
      { key: 'own:loose', limit: 4 },
      { key: 'own:count', limit: Infinity },
    ];
    const first = await limiter.attempt(keys);
    expect(first.admitted && Object.fromEntries(first.failures)).toEqual({ 'own:tight': 1, 'own:loose': 1, 'own:count': 1 });
    await limiter.attempt(keys);
    // `own:tight` is at its limit: refused, nothing counted, the wait is that of the refusing key.
    expect(await limiter.attempt(keys)).toEqual({ admitted: false, retryAfterSeconds: 60 });
    // Without it, the others go on: the loose one up to its own limit, the counter past both.
    for (let i = 0; i < 2; i++) await limiter.attempt(keys.slice(1));
    expect(await limiter.attempt(keys.slice(1))).toEqual({ admitted: false, retryAfterSeconds: 60 });
    const counted = await limiter.attempt(keys.slice(2));
    expect(counted.admitted && counted.failures.get('own:count')).toBe(5);
    expect(await limiter.retryAfter(keys.slice(2))).toBeUndefined();
  });

  it('an unlimited key stops counting at the cap and still admits', async () => {
    const limiter = new FailureLimiter(env.pool, { clock: clock().now });
    await env.pool.query('INSERT INTO auth.failure_windows (key, expires_at_ms, failures) VALUES ($1, $2, $3)', ['cap:a', 10_000_000, COUNT_CAP]);
    const outcome = await limiter.attempt([{ key: 'cap:a', limit: Infinity }]);
    expect(outcome.admitted && outcome.failures.get('cap:a')).toBe(COUNT_CAP);
  });
});
