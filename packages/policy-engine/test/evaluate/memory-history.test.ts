import { createMemoryHistory, type HistoryQuery } from '../../src';

const ACTION = 'urn:action:acme:print';
const query = (filters: HistoryQuery['filters'] = []): HistoryQuery => ({ policyId: 'urn:policy:acme:p', action: ACTION, filters });

describe('in-memory event history', () => {
  it('counts events of the action in each span, start inclusive and end exclusive', async () => {
    const history = createMemoryHistory();
    history.record(ACTION, 1000, {});
    history.record(ACTION, 2000, {});
    history.record(ACTION, 3000, {});
    history.record('urn:action:acme:other', 2000, {});
    const spans = [
      { from: 1000, to: 3000 },
      { from: -Infinity, to: 3001 },
      { from: 3000, to: 3000 },
      { from: 2001, to: 2999 },
    ];
    // [1000, 3000) holds 1000 and 2000; everything up to 3001 holds all three; an empty span and a gap hold none.
    expect(await history.count(query(), spans)).toEqual([2, 3, 0, 0]);
  });

  it('matches parameter filters by deep equality, with paths and with missing values as null', async () => {
    const history = createMemoryHistory();
    history.record(ACTION, 1, { user: 'ann', doc: { owner: { id: 7 }, tags: ['a', 'b'] } });
    history.record(ACTION, 2, new Map<string, unknown>([['user', 'bob'], ['doc', { tags: ['b', 'a'], owner: { id: 7.0 } }]]));
    history.record(ACTION, 3, { doc: { owner: {} } });
    const all = [{ from: -Infinity, to: 10 }];
    expect(await history.count(query([{ name: 'user', path: null, value: 'ann' }]), all)).toEqual([1]);
    // Key order is irrelevant, 7 equals 7.0, list order matters.
    expect(await history.count(query([{ name: 'doc', path: null, value: { tags: ['a', 'b'], owner: { id: 7 } } }]), all)).toEqual([1]);
    expect(await history.count(query([{ name: 'doc', path: '$.owner.id', value: 7 }]), all)).toEqual([2]);
    // The third event has no `user` and no `$.owner.id`: both read as null.
    expect(await history.count(query([{ name: 'user', path: null, value: null }]), all)).toEqual([1]);
    expect(await history.count(query([{ name: 'doc', path: '$.owner.id', value: null }]), all)).toEqual([1]);
    // A path that can select several nodes compares the list of selected values.
    expect(await history.count(query([{ name: 'doc', path: '$.tags[*]', value: ['b', 'a'] }]), all)).toEqual([1]);
    // Every filter must match.
    expect(
      await history.count(
        query([
          { name: 'user', path: null, value: 'bob' },
          { name: 'doc', path: '$.owner.id', value: 7 },
        ]),
        all,
      ),
    ).toEqual([1]);
  });

  it('finds the first and the last occurrence strictly before a time', async () => {
    const history = createMemoryHistory();
    history.record(ACTION, 500, { n: 1 });
    history.record(ACTION, 100, { n: 2 });
    history.record(ACTION, 900, { n: 1 });
    expect(await history.occurrence(query(), 'first', 1000)).toBe(100);
    expect(await history.occurrence(query(), 'last', 900)).toBe(500);
    expect(await history.occurrence(query([{ name: 'n', path: null, value: 1 }]), 'first', 1000)).toBe(500);
    expect(await history.occurrence(query(), 'first', 100)).toBeNull();
  });

  it('keeps valueChanged state per policy and id, storing only when asked', async () => {
    const history = createMemoryHistory();
    const ask = (value: unknown, store: boolean, id = 'v') => history.valueChanged({ policyId: 'urn:policy:acme:p', id, value, store });
    expect(await ask({ a: 1, b: 2 }, false)).toBe(true);
    expect(await ask({ a: 1, b: 2 }, true)).toBe(true);
    expect(await ask({ b: 2, a: 1 }, true)).toBe(false);
    expect(await ask({ a: 1, b: 3 }, false)).toBe(true);
    // Not stored: the stored value is still the first one.
    expect(await ask({ a: 1, b: 2 }, true)).toBe(false);
    expect(await ask({ a: 1, b: 2 }, true, 'w')).toBe(true);
  });

  it('lists what was recorded, at the times given', () => {
    const history = createMemoryHistory();
    history.record(ACTION, 20.7, { x: 1 });
    history.record(ACTION, 10, {});
    expect(history.events.map((event) => [event.time, [...event.parameters]])).toEqual([
      [20, [['x', 1]]],
      [10, []],
    ]);
  });
});
