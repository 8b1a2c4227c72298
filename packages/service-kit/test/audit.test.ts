import { decodeAuditCursor, encodeAuditCursor } from '@custos/contracts';
import { auditFilterOf, ConfigError, readAuditRetention } from '../src';

describe('audit retention config', () => {
  it('defaults to 400 days pruned hourly and takes fractions of a day', () => {
    expect(readAuditRetention({})).toEqual({ days: 400, intervalMs: 3_600_000 });
    expect(readAuditRetention({ AUDIT_RETENTION_DAYS: '0.5', AUDIT_PRUNE_INTERVAL_SECONDS: '10' })).toEqual({ days: 0.5, intervalMs: 10_000 });
  });

  it.each(['0', '-1', 'ten', '1e3'])('refuses AUDIT_RETENTION_DAYS=%s', (value) => {
    expect(() => readAuditRetention({ AUDIT_RETENTION_DAYS: value })).toThrow(ConfigError);
  });
});

describe('audit cursors', () => {
  it('read back what they wrote, and refuse anything else with a 400 naming `cursor`', () => {
    const cursor = { at: '2026-11-27T14:02:03.123456Z', service: 'auth', seq: 42 };
    expect(decodeAuditCursor(encodeAuditCursor(cursor))).toEqual(cursor);
    expect(auditFilterOf({ cursor: encodeAuditCursor(cursor), who: 'ci' })).toEqual({ limit: 50, who: 'ci', after: cursor });
    expect(() => auditFilterOf({ cursor: '2026-11-27~auth~x' })).toThrow(expect.objectContaining({ status: 400, errors: [expect.objectContaining({ path: 'cursor' })] }));
  });
});
