import { ConfigError } from '@custos/service-kit';
import { readAuthConfig } from '../src/config';

describe('readAuthConfig', () => {
  it('has working defaults', () => {
    const config = readAuthConfig({});
    expect(config).toMatchObject({
      port: 8082,
      bootstrap: undefined,
      trustProxy: false,
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/custos',
      logLevel: 'info',
      rateLimit: { limit: 10, windowMs: 60_000, delayMs: 1000 },
    });
  });

  it('reads the failure limit of the token endpoint', () => {
    expect(readAuthConfig({ AUTH_FAILURE_LIMIT: '3', AUTH_FAILURE_WINDOW_SECONDS: '5' }).rateLimit).toEqual({ limit: 3, windowMs: 5000, delayMs: 1000 });
    expect(readAuthConfig({ AUTH_SOURCE_FAILURE_LIMIT: '30', AUTH_FAILURE_DELAY_MS: '0' }).rateLimit).toEqual({ limit: 10, sourceLimit: 30, windowMs: 60_000, delayMs: 0 });
    expect(() => readAuthConfig({ AUTH_SOURCE_FAILURE_LIMIT: '0' })).toThrow(/AUTH_SOURCE_FAILURE_LIMIT/);
    expect(() => readAuthConfig({ AUTH_FAILURE_DELAY_MS: '60000' })).toThrow(/AUTH_FAILURE_DELAY_MS/);
    expect(() => readAuthConfig({ AUTH_FAILURE_LIMIT: '0' })).toThrow(/AUTH_FAILURE_LIMIT/);
    expect(() => readAuthConfig({ AUTH_FAILURE_WINDOW_SECONDS: 'soon' })).toThrow(/AUTH_FAILURE_WINDOW_SECONDS/);
  });

  it('reads AUTH_PORT and the bootstrap client', () => {
    const config = readAuthConfig({ AUTH_PORT: '18082', BOOTSTRAP_CLIENT_ID: 'admin', BOOTSTRAP_CLIENT_SECRET: 's' });
    expect(config.port).toBe(18082);
    expect(config.bootstrap).toEqual({ clientId: 'admin', clientSecret: 's' });
  });

  it('wants both bootstrap variables or neither', () => {
    expect(() => readAuthConfig({ BOOTSTRAP_CLIENT_ID: 'admin' })).toThrow(ConfigError);
    expect(() => readAuthConfig({ BOOTSTRAP_CLIENT_SECRET: 'secret' })).toThrow(ConfigError);
    expect(readAuthConfig({ BOOTSTRAP_CLIENT_ID: '', BOOTSTRAP_CLIENT_SECRET: '' }).bootstrap).toBeUndefined();
  });

  it('refuses bootstrap ids that are not URL-safe, and bad ports', () => {
    for (const id of ['with space', 'a:b', 'x'.repeat(129), 'ünï']) {
      expect(() => readAuthConfig({ BOOTSTRAP_CLIENT_ID: id, BOOTSTRAP_CLIENT_SECRET: 's' })).toThrow(/BOOTSTRAP_CLIENT_ID/);
    }
    expect(() => readAuthConfig({ AUTH_PORT: 'http' })).toThrow(/AUTH_PORT/);
    expect(() => readAuthConfig({ AUTH_PORT: '70000' })).toThrow(/AUTH_PORT/);
  });

  it('reads AUTH_TRUST_PROXY as express understands it', () => {
    expect(readAuthConfig({ AUTH_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(readAuthConfig({ AUTH_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(readAuthConfig({ AUTH_TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(readAuthConfig({ AUTH_TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe('loopback, 10.0.0.0/8');
  });
});
