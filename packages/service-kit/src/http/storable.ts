import type { ProblemError } from '@custos/contracts';

/** A lone UTF-16 surrogate: no Unicode character, and text PostgreSQL refuses in jsonb. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function flaw(text: string): string | undefined {
  if (text.includes('\u0000')) return 'must not contain the character U+0000';
  if (LONE_SURROGATE.test(text)) return 'must not contain a lone surrogate (`\\ud800`-`\\udfff` without its pair)';
  return undefined;
}

const step = (path: string, key: string | number): string =>
  typeof key === 'number' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;

/**
 * Located errors for every string (key or value) of a parsed JSON document that is not storable
 * text: U+0000, which PostgreSQL cannot hold in text or jsonb, and lone surrogates, which it refuses
 * in jsonb (and which no encoder can write as UTF-8). JSON escapes (`\u0000`, `\ud800`) are the only
 * way such strings arrive, since bodies are decoded from UTF-8. Iterative, so depth cannot overflow
 * the stack; stops after `max` errors.
 */
export function unstorableStrings(document: unknown, max = 20): ProblemError[] {
  const errors: ProblemError[] = [];
  const pending: Array<[unknown, string]> = [[document, '']];
  for (let next = pending.pop(); next !== undefined && errors.length < max; next = pending.pop()) {
    const [value, path] = next;
    if (typeof value === 'string') {
      const message = flaw(value);
      if (message) errors.push({ path: path === '' ? '(body)' : path, message });
    } else if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index -= 1) pending.push([value[index], step(path, index)]);
    } else if (typeof value === 'object' && value !== null) {
      const keys = Object.keys(value);
      for (const [index, key] of [...keys.entries()].reverse()) {
        const message = flaw(key);
        // The key itself cannot be shown safely in a path: name its position instead.
        if (message) errors.push({ path: step(path, `(key ${index})`), message });
        else pending.push([(value as Record<string, unknown>)[key], step(path, key)]);
      }
    }
  }
  return errors;
}
