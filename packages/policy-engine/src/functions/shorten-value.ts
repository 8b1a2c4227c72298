/** Limits that keep an explanation readable and its size bounded whatever the event carried. */
const MAX_STRING = 120;
const MAX_ITEMS = 10;
const MAX_DEPTH = 3;

export interface Shortened {
  value: unknown;
  truncated: boolean;
}

/**
 * A copy of a language value short enough to show: strings over 120 characters end in `…`, lists and objects keep
 * their first 10 entries and say how many were left out, nesting below 3 levels becomes `…`. Only explanations call it.
 */
export function shortenValue(value: unknown): Shortened {
  const state = { truncated: false };
  const shortened = shorten(value, 0, state);
  return { value: shortened, truncated: state.truncated };
}

function shorten(value: unknown, depth: number, state: { truncated: boolean }): unknown {
  if (typeof value === 'string') {
    if (value.length <= MAX_STRING) return value;
    state.truncated = true;
    return `${value.slice(0, MAX_STRING)}…`;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) {
    state.truncated = true;
    return '…';
  }
  if (Array.isArray(value)) {
    const items = value.slice(0, MAX_ITEMS).map((item: unknown) => shorten(item, depth + 1, state));
    if (value.length > MAX_ITEMS) {
      state.truncated = true;
      items.push(`… ${value.length - MAX_ITEMS} more`);
    }
    return items;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  const result: Record<string, unknown> = {};
  for (const [key, item] of entries.slice(0, MAX_ITEMS)) result[key] = shorten(item, depth + 1, state);
  if (entries.length > MAX_ITEMS) {
    state.truncated = true;
    result['…'] = `${entries.length - MAX_ITEMS} more`;
  }
  return result;
}
