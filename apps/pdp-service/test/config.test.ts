import { ConfigError } from '@custos/service-kit';
import { readPdpConfig } from '../src/config';

describe('readPdpConfig', () => {
  it('has defaults that work locally', () => {
    expect(readPdpConfig({}, 'box')).toMatchObject({
      port: 8080,
      defaultDecision: 'allow',
      authzenDefault: 'deny',
      timeZone: 'UTC',
      resyncIntervalMs: 30_000,
      startWaitMs: 0,
      replicaId: 'box:8080',
      natsUrl: 'nats://127.0.0.1:4222',
      natsPrefix: 'custos',
      authUrl: 'http://127.0.0.1:8082',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/custos',
    });
  });

  it('publishes decision records only when asked (they cost CPU on every decision)', () => {
    expect(readPdpConfig({}, 'box').decisionRecords.enabled).toBe(false);
    expect(readPdpConfig({ PDP_DECISION_RECORDS: 'on' }, 'box').decisionRecords.enabled).toBe(true);
    expect(() => readPdpConfig({ PDP_DECISION_RECORDS: 'yes' }, 'box')).toThrow(ConfigError);
  });

  it('reads every pdp variable', () => {
    const config = readPdpConfig(
      {
        PDP_PORT: '9090',
        DEFAULT_DECISION: 'inhibit',
        PDP_AUTHZEN_DEFAULT: 'allow',
        POLICY_TIMEZONE: 'Europe/Berlin',
        PDP_RESYNC_INTERVAL_MS: '500',
        PDP_REPLICA_ID: 'pdp-2',
        PDP_START_WAIT_MS: '60000',
      },
      'box',
    );
    expect(config).toMatchObject({ port: 9090, defaultDecision: 'inhibit', authzenDefault: 'allow', timeZone: 'Europe/Berlin', resyncIntervalMs: 500, startWaitMs: 60_000, replicaId: 'pdp-2' });
    expect(readPdpConfig({ PDP_PORT: '9091' }, 'box').replicaId).toBe('box:9091');
  });

  it('reads PDP_CALL_ALLOW into the egress policy the calls use (public addresses only without it)', () => {
    const private10 = { family: 'ipv4', text: '10.1.2.3' } as const;
    expect(readPdpConfig({}, 'box').egress.refusal('10.1.2.3', private10, 9000)).toMatch(/not a public address/);
    expect(readPdpConfig({ PDP_CALL_ALLOW: ' 10.0.0.0/8 , pip.internal:9000' }, 'box').egress.refusal('10.1.2.3', private10, 9000)).toBeUndefined();
  });

  it.each([
    [{ PDP_PORT: 'eighty' }, /PDP_PORT must be an integer/],
    [{ PDP_PORT: '70000' }, /PDP_PORT must be between/],
    [{ DEFAULT_DECISION: 'deny' }, /DEFAULT_DECISION must be one of `allow`, `inhibit`, got `deny`/],
    [{ PDP_AUTHZEN_DEFAULT: 'inhibit' }, /PDP_AUTHZEN_DEFAULT must be one of `deny`, `allow`, got `inhibit`/],
    [{ POLICY_TIMEZONE: 'Mars/Olympus' }, /POLICY_TIMEZONE must be an IANA time zone, got `Mars\/Olympus`/],
    [{ PDP_RESYNC_INTERVAL_MS: '60000' }, /PDP_RESYNC_INTERVAL_MS must be between 100 and 30000/],
    [{ PDP_RESYNC_INTERVAL_MS: '10' }, /PDP_RESYNC_INTERVAL_MS must be between/],
  ])('refuses %j', (env, message) => {
    expect(() => readPdpConfig(env, 'box')).toThrow(ConfigError);
    expect(() => readPdpConfig(env, 'box')).toThrow(message);
  });
});

describe('readPdpConfig: history, PIP, PXP and timers', () => {
  it('has defaults', () => {
    expect(readPdpConfig({}, 'box')).toMatchObject({
      history: { secret: undefined, poolSize: 10, timeoutMs: 2000, retentionIntervalMs: 60_000, synchronousCommit: true, batchWindowMs: 0 },
      pip: { timeoutMs: 500, maxConcurrency: 32, breakerFailures: 5, breakerOpenMs: 5000, cacheEntries: 10_000 },
      pxp: { timeoutMs: 2000, syncTimeoutMs: 500, attempts: 4, backoffMs: 200, maxConcurrency: 32, breakerFailures: 5, breakerOpenMs: 5000, leaseMs: 15_000, pollMs: 1000 },
      timers: true,
      timerCatchUp: 'last',
      timerLeaseMs: 60_000,
      timerCheckMs: 10_000,
    });
  });

  it('reads every variable', () => {
    const config = readPdpConfig(
      {
        PDP_HISTORY_SECRET: 'a-long-enough-secret',
        PDP_HISTORY_POOL_SIZE: '4',
        PDP_HISTORY_TIMEOUT_MS: '700',
        PDP_HISTORY_RETENTION_INTERVAL_MS: '1000',
        PDP_HISTORY_SYNC_COMMIT: 'off',
        PDP_HISTORY_BATCH_WINDOW_MS: '3',
        PDP_PIP_TIMEOUT_MS: '250',
        PDP_PIP_MAX_CONCURRENCY: '3',
        PDP_PIP_BREAKER_FAILURES: '2',
        PDP_PIP_BREAKER_OPEN_MS: '900',
        PDP_PIP_CACHE_ENTRIES: '0',
        PDP_PXP_TIMEOUT_MS: '111',
        PDP_PXP_SYNC_TIMEOUT_MS: '222',
        PDP_PXP_ATTEMPTS: '2',
        PDP_PXP_BACKOFF_MS: '5',
        PDP_PXP_MAX_CONCURRENCY: '6',
        PDP_PXP_BREAKER_FAILURES: '7',
        PDP_PXP_BREAKER_OPEN_MS: '800',
        PDP_TIMERS: 'off',
        PDP_PXP_LEASE_MS: '3000',
        PDP_PXP_POLL_MS: '50',
        PDP_TIMER_CATCH_UP: 'skip',
        PDP_TIMER_LEASE_MS: '2000',
        PDP_TIMER_CHECK_MS: '500',
      },
      'box',
    );
    expect(config).toMatchObject({
      history: { secret: 'a-long-enough-secret', poolSize: 4, timeoutMs: 700, retentionIntervalMs: 1000, synchronousCommit: false, batchWindowMs: 3 },
      pip: { timeoutMs: 250, maxConcurrency: 3, breakerFailures: 2, breakerOpenMs: 900, cacheEntries: 0 },
      pxp: { timeoutMs: 111, syncTimeoutMs: 222, attempts: 2, backoffMs: 5, maxConcurrency: 6, breakerFailures: 7, breakerOpenMs: 800, leaseMs: 3000, pollMs: 50 },
      timers: false,
      timerCatchUp: 'skip',
      timerLeaseMs: 2000,
      timerCheckMs: 500,
    });
  });

  it.each([
    [{ PDP_HISTORY_SECRET: 'short' }, /PDP_HISTORY_SECRET must be at least 16 characters long/],
    [{ PDP_PIP_TIMEOUT_MS: '0' }, /PDP_PIP_TIMEOUT_MS must be between/],
    [{ PDP_PXP_ATTEMPTS: 'three' }, /PDP_PXP_ATTEMPTS must be an integer/],
    [{ PDP_TIMERS: 'yes' }, /PDP_TIMERS must be one of `on`, `off`/],
    [{ PDP_TIMER_CATCH_UP: 'all' }, /PDP_TIMER_CATCH_UP must be one of `last`, `skip`/],
    [{ PDP_PXP_LEASE_MS: '10' }, /PDP_PXP_LEASE_MS must be between/],
    [{ PDP_HISTORY_SYNC_COMMIT: 'maybe' }, /PDP_HISTORY_SYNC_COMMIT must be one of/],
    [{ PDP_PUBLIC_URL: 'pdp.example.com' }, /PDP_PUBLIC_URL must be a URL/],
    [{ PDP_PUBLIC_URL: 'ftp://pdp.example.com' }, /PDP_PUBLIC_URL must be an http\(s\) URL without query or fragment/],
    [{ PDP_PUBLIC_URL: 'https://pdp.example.com/?tenant=1' }, /without query or fragment/],
    [{ PDP_PUBLIC_URL: 'https://pdp.example.com/#top' }, /without query or fragment/],
    [{ PDP_CALL_ALLOW: '10.0.0.0/8, 300.1.2.3/8' }, /PDP_CALL_ALLOW: `300\.1\.2\.3\/8` is not a CIDR/],
    [{ PDP_CALL_ALLOW: 'pip.internal:99999' }, /PDP_CALL_ALLOW: `pip\.internal:99999` has no valid port/],
  ])('refuses %j', (env, message) => {
    expect(() => readPdpConfig(env, 'box')).toThrow(ConfigError);
    expect(() => readPdpConfig(env, 'box')).toThrow(message);
  });

  it('reads the public URL for the AuthZEN metadata, without a trailing slash; unset by default', () => {
    expect(readPdpConfig({}, 'box').publicUrl).toBeUndefined();
    expect(readPdpConfig({ PDP_PUBLIC_URL: 'https://pdp.example.com/' }, 'box').publicUrl).toBe('https://pdp.example.com');
    expect(readPdpConfig({ PDP_PUBLIC_URL: 'https://pdp.example.com/tenant1' }, 'box').publicUrl).toBe('https://pdp.example.com/tenant1');
  });
});
