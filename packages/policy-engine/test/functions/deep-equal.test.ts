import fc from 'fast-check';
import { deepEqual } from '../../src/functions/deep-equal';

describe('deepEqual', () => {
  it('ignores key order and compares nested values', () => {
    expect(deepEqual({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    expect(deepEqual({ a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [2, 1] } })).toBe(false);
  });

  it('treats 1 and 1.0 as equal and different types as unequal', () => {
    expect(deepEqual(1, 1.0)).toBe(true);
    expect(deepEqual(JSON.parse('1.0'), JSON.parse('1'))).toBe(true);
    expect(deepEqual('1', 1)).toBe(false);
    expect(deepEqual(true, 'true')).toBe(false);
    expect(deepEqual([], {})).toBe(false);
    expect(deepEqual(null, {})).toBe(false);
  });

  it('does not treat a missing key as equal to an extra one', () => {
    expect(deepEqual({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(deepEqual({ a: 1 }, { a: 1, b: undefined })).toBe(false);
  });

  it('agrees with comparing canonical JSON text', () => {
    const canonical = (value: unknown): string =>
      JSON.stringify(value, (_, inner: unknown) =>
        inner !== null && typeof inner === 'object' && !Array.isArray(inner)
          ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
          : inner,
      );
    const json = fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.parse(JSON.stringify(value)) as unknown);
    fc.assert(
      fc.property(json, json, (left, right) => {
        expect(deepEqual(left, right)).toBe(canonical(left) === canonical(right));
        expect(deepEqual(left, JSON.parse(JSON.stringify(left)))).toBe(true);
      }),
    );
  });
});

describe('deepEqual on values from outside', () => {
  it('compares values nested far deeper than the call stack allows', () => {
    const nest = (depth: number, leaf: unknown): unknown => {
      let value = leaf;
      for (let level = 0; level < depth; level += 1) value = level % 2 === 0 ? [value] : { k: value };
      return value;
    };
    expect(deepEqual(nest(200_000, 1), nest(200_000, 1))).toBe(true);
    expect(deepEqual(nest(200_000, 1), nest(200_000, 2))).toBe(false);
  });
});
