/**
 * JSON equality (policy-language.md §5 `equals`): object key order is irrelevant, list order matters, `1` equals
 * `1.0` (they are the same JavaScript number), and values of different types are simply unequal.
 * Iterative, because event values come from outside and may nest deeper than the call stack allows.
 */
export function deepEqual(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  const pending: Array<[unknown, unknown]> = [[left, right]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [a, b] = next;
    if (a === b) continue;
    if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
    const aIsList = Array.isArray(a);
    if (aIsList !== Array.isArray(b)) return false;
    if (aIsList) {
      const bList = b as unknown[];
      if (a.length !== bList.length) return false;
      for (let index = 0; index < a.length; index += 1) pending.push([a[index], bList[index]]);
      continue;
    }
    const aRecord = a as Record<string, unknown>;
    const bRecord = b as Record<string, unknown>;
    const keys = Object.keys(aRecord);
    if (keys.length !== Object.keys(bRecord).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(bRecord, key)) return false;
      pending.push([aRecord[key], bRecord[key]]);
    }
  }
  return true;
}
