import { createHmac } from 'node:crypto';
import { HistoryHasher } from '../src/history/hashing';

const SECRET = 'a-secret-of-the-test-0123456789';

/** The stored format of a key (policy-language.md §6), computed here from its definition: HMAC-SHA256, 128 bits, base64url. */
const expected = (name: string, path: string | null, canonicalValue: string): string =>
  createHmac('sha256', SECRET).update(`${JSON.stringify([name, path])}\n${canonicalValue}`).digest().subarray(0, 16).toString('base64url');

describe('HistoryHasher keys (remembered per input)', () => {
  it('gives the stored format every time a key is asked again, and keys of other values and names differ', () => {
    const hasher = new HistoryHasher(SECRET);
    for (let round = 0; round < 3; round += 1) {
      expect(hasher.key('user', null, 'alice')).toBe(expected('user', null, '"alice"'));
      expect(hasher.key('doc', '$.owner', { b: 1, a: [2] })).toBe(expected('doc', '$.owner', '{"a":[2],"b":1}'));
      expect(hasher.key('user', null, undefined)).toBe(expected('user', null, 'null'));
    }
    expect(hasher.key('user', null, 'bob')).not.toBe(hasher.key('user', null, 'alice'));
    expect(hasher.key('owner', null, 'alice')).not.toBe(hasher.key('user', null, 'alice'));
  });

  it('hashes long values and more keys than it remembers the same way', () => {
    const hasher = new HistoryHasher(SECRET);
    const long = 'x'.repeat(5000);
    expect(hasher.key('note', null, long)).toBe(expected('note', null, JSON.stringify(long)));
    for (let user = 0; user < 12_000; user += 1) hasher.key('user', null, `user-${user}`);
    expect(hasher.key('user', null, 'user-7')).toBe(expected('user', null, '"user-7"'));
    expect(hasher.key('user', null, 'user-11999')).toBe(expected('user', null, '"user-11999"'));
  });

  it('event keys are sorted and unique: every parameter plus every filter path', () => {
    const hasher = new HistoryHasher(SECRET);
    const keys = hasher.eventKeys(new Map<string, unknown>([['user', { id: 'u1' }]]), [{ name: 'user', path: '$.id' }, { name: 'user', path: '$.id' }]);
    expect(keys).toEqual([expected('user', null, '{"id":"u1"}'), expected('user', '$.id', '"u1"')].sort());
  });
});
