import { recordBatchQuery, recordedEvents, type RecordEventsArguments } from '../src/history/batch-sql';

/** The statement a batch is recorded with (unit): what it carries, and what it refuses to send. */
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

describe('the statement that records a batch', () => {
  it('is one prepared CALL whose values travel as parameters, times as integers, with the flush asked for', () => {
    const query = recordBatchQuery(batch, true);
    expect(query.text).toMatch(/^CALL pdp\.record_batch\(\$1::bigint, .*\$10::boolean, NULL\)$/);
    expect(query.text).not.toContain('acme');
    expect(query.values).toEqual(['-9223372036854775808', "urn:action:acme:o'k", '41', '1700000000000', ['acme'], ['1700000000123'], ['3'], ['a b'], '10000', true]);
    // The same name for every batch: prepared once per connection.
    expect(recordBatchQuery({ ...batch, nows: [1] }, true).name).toBe(query.name);
  });

  it('asks for no flush when answers need not wait for the disk, and sends no since before the first batch', () => {
    const values = recordBatchQuery({ ...batch, since: undefined }, false).values;
    expect(values[9]).toBe(false);
    expect(values.slice(2, 4)).toEqual([null, null]);
  });

  it('refuses a lock key that is not a 64-bit integer, and times that are not integers', () => {
    expect(() => recordBatchQuery({ ...batch, lockKey: '1); DROP TABLE x; --' }, true)).toThrow(/not a lock key/);
    expect(() => recordBatchQuery({ ...batch, lockKey: '9223372036854775808' }, true)).toThrow(/not a lock key/);
    expect(() => recordBatchQuery({ ...batch, nows: [Number.NaN] }, true)).toThrow(/not an integer/);
  });

  it('reads the events of the procedure’s one row, and refuses a row without them', () => {
    expect(recordedEvents([{ events: '[[7,1700000000000,["a","b"],false]]' }])).toEqual([[7, 1_700_000_000_000, ['a', 'b'], false]]);
    expect(recordedEvents([{ events: '[]' }])).toEqual([]);
    expect(() => recordedEvents([])).toThrow(/no events/);
    expect(() => recordedEvents([{ events: '{}' }])).toThrow(/not a list/);
  });
});
