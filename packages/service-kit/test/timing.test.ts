import { SingleFlight, backoffDelay, deadlineIn, sleep } from '@custos/service-kit';

describe('backoffDelay', () => {
  it('starts at initialMs, doubles per failure and stops at maxMs', () => {
    const backoff = { initialMs: 100, maxMs: 1000 };
    expect([1, 2, 3, 4, 5, 6].map((attempt) => backoffDelay(backoff, attempt))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('stays finite however many failures there were', () => {
    expect(backoffDelay({ initialMs: 100, maxMs: 60_000 }, 10_000)).toBe(60_000);
  });

  it('keeps a jittered delay within its spread around the exponential value', () => {
    for (let round = 0; round < 200; round++) {
      const delay = backoffDelay({ initialMs: 1000, maxMs: 10_000, jitter: 0.2 }, 2);
      expect(delay).toBeGreaterThanOrEqual(1600);
      expect(delay).toBeLessThanOrEqual(2400);
    }
  });
});

describe('sleep', () => {
  it('resolves early when its signal aborts', async () => {
    const stop = new AbortController();
    const sleeping = sleep(3_600_000, stop.signal);
    stop.abort();
    await expect(sleeping).resolves.toBeUndefined();
  });

  it('resolves at once for a signal aborted already', async () => {
    await expect(sleep(3_600_000, AbortSignal.abort())).resolves.toBeUndefined();
  });
});

describe('deadlineIn', () => {
  it('has passed with nothing left once its time is up, and not before', () => {
    const now = deadlineIn(0);
    expect(now.passed()).toBe(true);
    expect(now.remainingMs()).toBe(0);
    const later = deadlineIn(3_600_000);
    expect(later.passed()).toBe(false);
    expect(later.remainingMs()).toBeGreaterThan(3_000_000);
  });
});

describe('SingleFlight', () => {
  it('gives callers during a run that run, and starts a new run after it settled', async () => {
    let runs = 0;
    let finish: (value: number) => void = () => undefined;
    const flight = new SingleFlight(() => {
      runs++;
      return new Promise<number>((resolve) => (finish = resolve));
    });
    const first = flight.run();
    const second = flight.run();
    expect(flight.running).toBe(first);
    expect(runs).toBe(1);
    finish(7);
    expect(await Promise.all([first, second])).toEqual([7, 7]);
    expect(flight.running).toBeUndefined();
    const third = flight.run();
    expect(runs).toBe(2);
    finish(8);
    expect(await third).toBe(8);
  });

  it('lets the next caller run again after a run failed', async () => {
    let runs = 0;
    const flight = new SingleFlight(() => (++runs === 1 ? Promise.reject(new Error('first run failed')) : Promise.resolve(runs)));
    await expect(flight.run()).rejects.toThrow('first run failed');
    await expect(flight.run()).resolves.toBe(2);
  });
});
