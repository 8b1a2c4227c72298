/** One step of a simple path: a member name or an array index (negative: from the end). */
export type PathStep = { readonly name: string } | { readonly index: number };

const START = /^\$/;
const DOT_NAME = /^\.([A-Za-z_][A-Za-z0-9_]*)/;
const BRACKET_NAME = /^\[(?:'([^'\\]*)'|"([^"\\]*)")\]/;
const BRACKET_INDEX = /^\[(-?(?:0|[1-9]\d{0,14}))\]/;

/**
 * The paths policies use most (`$.a.b`, `$['a']`, `$.list[0]`) as a list of steps, so they can be applied by plain
 * property access instead of the general RFC 9535 engine; null for anything else (wildcards, filters, `..`,
 * escapes, spaces), which json-p3 then handles. Both give the same answer for every value: a name selects only an
 * own member of an object, an index only an element of an array.
 */
export function readSimplePath(text: string): PathStep[] | null {
  if (!START.test(text)) return null;
  const steps: PathStep[] = [];
  let rest = text.slice(1);
  while (rest.length > 0) {
    const dotted = DOT_NAME.exec(rest);
    const dottedName = dotted?.[1];
    if (dotted !== null && dottedName !== undefined) {
      steps.push({ name: dottedName });
      rest = rest.slice(dotted[0].length);
      continue;
    }
    const quoted = BRACKET_NAME.exec(rest);
    const quotedName = quoted?.[1] ?? quoted?.[2];
    if (quoted !== null && quotedName !== undefined) {
      steps.push({ name: quotedName });
      rest = rest.slice(quoted[0].length);
      continue;
    }
    const indexed = BRACKET_INDEX.exec(rest);
    if (indexed === null) return null;
    const index = Number(indexed[1]);
    if (!Number.isSafeInteger(index)) return null;
    steps.push({ index });
    rest = rest.slice(indexed[0].length);
  }
  // A copy of exactly its length: an array grown by push keeps room for 17 steps, and compiled paths live as long as
  // their policy (issue 26).
  return steps.slice();
}

/** The value a simple path selects, or undefined when it selects nothing. */
export function applySimplePath(steps: readonly PathStep[], value: unknown): unknown {
  let current = value;
  for (const step of steps) {
    if ('name' in step) {
      if (typeof current !== 'object' || current === null || Array.isArray(current) || !Object.hasOwn(current, step.name)) return undefined;
      current = (current as Record<string, unknown>)[step.name];
    } else {
      if (!Array.isArray(current)) return undefined;
      const position = step.index < 0 ? current.length + step.index : step.index;
      if (position < 0 || position >= current.length) return undefined;
      current = current[position];
    }
  }
  return current;
}
