import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
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

/** HMAC inputs longer than this are hashed every time (a long value is rarely asked again, and would fill the memory). */
const REMEMBERED_INPUT_CHARS = 256;
/** Most keys remembered; beyond that all are forgotten. */
const REMEMBERED_KEYS = 10_000;

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
  /** Keys computed lately, by their HMAC input (only short inputs; bounded): a user's key is asked by each of their decisions. */
  private readonly keys = new Map<string, string>();
  private readonly secretKey: KeyObject;

  constructor(secret: string) {
    this.secretKey = createSecretKey(Buffer.from(secret, 'utf8'));
  }

  key(name: string, path: string | null, value: unknown): string {
    const input = `${JSON.stringify([name, path])}\n${canonicalJson(value ?? null)}`;
    if (input.length > REMEMBERED_INPUT_CHARS) return this.hash(input);
    let key = this.keys.get(input);
    if (key === undefined) {
      key = this.hash(input);
      if (this.keys.size >= REMEMBERED_KEYS) this.keys.clear();
      this.keys.set(input, key);
    }
    return key;
  }

  private hash(input: string): string {
    return createHmac('sha256', this.secretKey).update(input).digest().subarray(0, 16).toString('base64url');
  }

  /** The hash `valueChanged` state is stored as. */
  value(value: unknown): string {
    return createHmac('sha256', this.secretKey).update('valueChanged\n').update(canonicalJson(value ?? null)).digest().subarray(0, 16).toString('base64url');
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
