import { ConfigError } from '@custos/service-kit';
import { readPdpConfig } from '../src/config';

describe('readPdpConfig', () => {
  it('has defaults that work locally', () => {
    expect(readPdpConfig({}, 'box')).toMatchObject({
      port: 8080,
      defaultDecision: 'allow',
      timeZone: 'UTC',
      resyncIntervalMs: 30_000,
      replicaId: 'box:8080',
      natsUrl: 'nats://127.0.0.1:4222',
      natsPrefix: 'custos',
      authUrl: 'http://127.0.0.1:8082',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/custos',
    });
  });

  it('reads every pdp variable', () => {
    const config = readPdpConfig(
      {
        PDP_PORT: '9090',
        DEFAULT_DECISION: 'inhibit',
        POLICY_TIMEZONE: 'Europe/Berlin',
        PDP_RESYNC_INTERVAL_MS: '500',
        PDP_REPLICA_ID: 'pdp-2',
      },
      'box',
    );
    expect(config).toMatchObject({ port: 9090, defaultDecision: 'inhibit', timeZone: 'Europe/Berlin', resyncIntervalMs: 500, replicaId: 'pdp-2' });
    expect(readPdpConfig({ PDP_PORT: '9091' }, 'box').replicaId).toBe('box:9091');
  });

  it.each([
    [{ PDP_PORT: 'eighty' }, /PDP_PORT must be an integer/],
    [{ PDP_PORT: '70000' }, /PDP_PORT must be between/],
    [{ DEFAULT_DECISION: 'deny' }, /DEFAULT_DECISION must be one of `allow`, `inhibit`, got `deny`/],
    [{ POLICY_TIMEZONE: 'Mars/Olympus' }, /POLICY_TIMEZONE must be an IANA time zone, got `Mars\/Olympus`/],
    [{ PDP_RESYNC_INTERVAL_MS: '60000' }, /PDP_RESYNC_INTERVAL_MS must be between 100 and 30000/],
    [{ PDP_RESYNC_INTERVAL_MS: '10' }, /PDP_RESYNC_INTERVAL_MS must be between/],
  ])('refuses %j', (env, message) => {
    expect(() => readPdpConfig(env, 'box')).toThrow(ConfigError);
    expect(() => readPdpConfig(env, 'box')).toThrow(message);
  });
});
