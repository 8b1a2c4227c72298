import { recordBatchStatements, RECORDED_RESULT, type RecordEventsArguments } from '../src/history/batch-sql';

/** The message a batch is recorded with (unit): what it holds, in which order, and what it refuses to write. */
const batch: RecordEventsArguments = {
  lockKey: '-9223372036854775808',
  action: "urn:action:acme:o'k",
  since: { id: 41, at: 1_700_000_000_000 },
  solutions: ['acme'],
  nows: [1_700_000_000_123.7],
  revisions: [3],
  keys: ['a b'],
  limit: 10_000,
};

describe('the message that records a batch', () => {
  it('commits the recording first and then a synchronous flush, in a transaction of its own', () => {
    const statements = recordBatchStatements(batch, true).split('; ');
    expect(statements[RECORDED_RESULT]).toMatch(/^SELECT id, at, keys, fresh FROM pdp\.record_events\(-9223372036854775808::bigint, 'urn:action:acme:o''k', 41::bigint, 1700000000000::bigint, /);
    expect(statements.slice(RECORDED_RESULT + 1)).toEqual([
      'COMMIT',
      "SELECT set_config('synchronous_commit', 'on', true), pg_logical_emit_message(true, 'custos:history', 'durable')",
    ]);
    expect(statements[RECORDED_RESULT]).toContain('ARRAY[1700000000123]::bigint[]');
  });

  it('sends no flush when answers need not wait for the disk', () => {
    expect(recordBatchStatements(batch, false)).not.toContain('synchronous_commit');
    expect(recordBatchStatements({ ...batch, since: undefined }, false)).toContain("'urn:action:acme:o''k', NULL::bigint, NULL::bigint");
  });

  it('refuses a lock key that is not a 64-bit integer, and times that are not integers', () => {
    expect(() => recordBatchStatements({ ...batch, lockKey: '1); DROP TABLE x; --' }, true)).toThrow(/not a lock key/);
    expect(() => recordBatchStatements({ ...batch, lockKey: '9223372036854775808' }, true)).toThrow(/not a lock key/);
    expect(() => recordBatchStatements({ ...batch, nows: [Number.NaN] }, true)).toThrow(/not an integer/);
  });
});
