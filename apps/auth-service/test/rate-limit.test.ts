import { FailureLimiter } from '../src/ratelimit/failure-limiter';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('FailureLimiter', () => {
  it('allows `limit` failures, then refuses until the window ends', () => {
    const time = clock();
    const limiter = new FailureLimiter({ limit: 3, windowMs: 60_000, clock: time.now });
    for (let i = 0; i < 3; i++) {
      expect(limiter.retryAfter('a')).toBeUndefined();
      limiter.fail('a');
    }
    expect(limiter.retryAfter('a')).toBe(60);
    time.advance(20_500);
    expect(limiter.retryAfter('a')).toBe(40);
    time.advance(39_000);
    expect(limiter.retryAfter('a')).toBe(1);
    time.advance(500);
    expect(limiter.retryAfter('a')).toBeUndefined();
  });

  it('counts keys separately', () => {
    const time = clock();
    const limiter = new FailureLimiter({ limit: 2, clock: time.now });
    limiter.fail('a');
    limiter.fail('a');
    limiter.fail('b');
    expect(limiter.retryAfter('a')).toBeGreaterThan(0);
    expect(limiter.retryAfter('b')).toBeUndefined();
  });

  it('forgets failures of a window that has ended', () => {
    const time = clock();
    const limiter = new FailureLimiter({ limit: 2, windowMs: 1000, clock: time.now });
    limiter.fail('a');
    time.advance(1000);
    limiter.fail('a');
    expect(limiter.retryAfter('a')).toBeUndefined();
    limiter.fail('a');
    expect(limiter.retryAfter('a')).toBe(1);
  });

  it('stays bounded: expired keys are swept, then the oldest dropped', () => {
    const time = clock();
    const limiter = new FailureLimiter({ limit: 1, windowMs: 1000, maxKeys: 10, clock: time.now });
    for (let i = 0; i < 10; i++) limiter.fail(`old-${i}`);
    time.advance(1000);
    limiter.fail('new');
    expect(limiter.size).toBe(1);
    for (let i = 0; i < 50; i++) limiter.fail(`k-${i}`);
    expect(limiter.size).toBeLessThanOrEqual(10);
    expect(limiter.retryAfter('k-49')).toBe(1);
  });

  it('forgives a failure taken back, never below zero', () => {
    const time = clock();
    const limiter = new FailureLimiter({ limit: 2, clock: time.now });
    limiter.fail('a');
    limiter.fail('a');
    expect(limiter.retryAfter('a')).toBeGreaterThan(0);
    limiter.forgive('a');
    expect(limiter.retryAfter('a')).toBeUndefined();
    limiter.forgive('a');
    limiter.forgive('a');
    limiter.fail('a');
    expect(limiter.retryAfter('a')).toBeUndefined();
    limiter.forgive('never-failed');
    expect(limiter.retryAfter('never-failed')).toBeUndefined();
  });

  it('rejects nonsensical bounds', () => {
    expect(() => new FailureLimiter({ limit: 0 })).toThrow();
    expect(() => new FailureLimiter({ windowMs: -1 })).toThrow();
  });
});
