import { createHmac } from 'node:crypto';
import { historyFilterValue, type HistoryFilter } from '@custos/policy-engine';

/**
 * JSON text with object keys sorted, so values equal by the language's deep equality (key order irrelevant,
 * `1` equals `1.0`) give the same text. Iterative: values come from outside and may nest deeply.
 */
export function canonicalJson(value: unknown): string {
  let output = '';
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (item instanceof Punctuation) {
      output += item.text;
    } else if (Array.isArray(item)) {
      output += '[';
      pending.push(CLOSE_LIST);
      for (let index = item.length - 1; index >= 0; index -= 1) {
        pending.push(item[index]);
        if (index > 0) pending.push(COMMA);
      }
    } else if (typeof item === 'object' && item !== null) {
      output += '{';
      const record = item as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      pending.push(CLOSE_OBJECT);
      for (let index = keys.length - 1; index >= 0; index -= 1) {
        const key = keys[index];
        if (key === undefined) continue;
        pending.push(record[key]);
        pending.push(new Punctuation(`${JSON.stringify(key)}:`));
        if (index > 0) pending.push(COMMA);
      }
    } else {
      output += item === undefined ? 'null' : JSON.stringify(item);
    }
  }
  return output;
}

class Punctuation {
  constructor(readonly text: string) {}
}
const COMMA = new Punctuation(',');
const CLOSE_LIST = new Punctuation(']');
const CLOSE_OBJECT = new Punctuation('}');

/** Which recorded parameter (and which path inside it) some deployed `eventOccurrence` filters on. */
export interface FilterPath {
  readonly name: string;
  readonly path: string | null;
}

/**
 * Keyed hashes of the history (policy-language.md §6: values only as HMAC with a server secret). A recorded event
 * keeps one key per parameter, `H(name, null, value)`, and one per filter path deployed policies use for its action,
 * `H(name, path, value at path)`; a filter matches an event when its key is among the event's keys. Hashes are
 * HMAC-SHA256 truncated to 128 bits, base64url.
 */
export class HistoryHasher {
  constructor(private readonly secret: string) {}

  key(name: string, path: string | null, value: unknown): string {
    return createHmac('sha256', this.secret)
      .update(JSON.stringify([name, path]))
      .update('\n')
      .update(canonicalJson(value ?? null))
      .digest()
      .subarray(0, 16)
      .toString('base64url');
  }

  /** The hash `valueChanged` state is stored as. */
  value(value: unknown): string {
    return createHmac('sha256', this.secret).update('valueChanged\n').update(canonicalJson(value ?? null)).digest().subarray(0, 16).toString('base64url');
  }

  /**
   * Keys of an event: every parameter, plus the value (null when absent, as the engine compares) at every filter
   * path of its action. Sorted and unique.
   */
  eventKeys(parameters: ReadonlyMap<string, unknown>, filters: readonly FilterPath[]): string[] {
    const keys = new Set<string>();
    for (const [name, value] of parameters) keys.add(this.key(name, null, value));
    for (const { name, path } of filters) {
      const value = path === null ? parameters.get(name) : historyFilterValue(path, parameters.get(name));
      keys.add(this.key(name, path, value ?? null));
    }
    return [...keys].sort();
  }

  /** Keys a matching event must hold: one per filter. Sorted and unique. */
  filterKeys(filters: readonly HistoryFilter[]): string[] {
    return [...new Set(filters.map((filter) => this.key(filter.name, filter.path, filter.value ?? null)))].sort();
  }
}
