import type { NamedValue } from '../api';

/**
 * The engine's doors to outside state (architecture.md §4). The engine does no I/O: the pdp implements these and
 * hands them to `decide`. Every method returns a promise; a rejection is treated like any other failure of that
 * port (pip → default, execute in a condition → false, history → the mechanism fails closed).
 */

/** A span of occurrence times in ms since the epoch, `from` inclusive, `to` exclusive; `from` may be -Infinity. */
export interface TimeSpan {
  readonly from: number;
  readonly to: number;
}

/**
 * One `parameter:*` filter of an `eventOccurrence` (policy-language.md §6): a recorded event matches when its
 * parameter `name` (or, with `path`, the value at that JSONPath inside it) equals `value` (deep JSON equality).
 * `historyFilterValue` computes the value a recorded parameter is compared by, for stores that keep hashes.
 */
export interface HistoryFilter {
  readonly name: string;
  /** The filter's `jsonPathQuery`, or null. */
  readonly path: string | null;
  readonly value: unknown;
}

export interface HistoryQuery {
  /** The policy asking, for logs and per-policy retention. */
  readonly policyId: string;
  /** `eventOccurrence/@event`. */
  readonly action: string;
  readonly filters: readonly HistoryFilter[];
}

export interface ValueChangedRequest {
  readonly policyId: string;
  /** `valueChanged/@id`, unique in its policy. */
  readonly id: string;
  readonly value: unknown;
  /** False for explanations, which must not change state (api.md §3): compare only. */
  readonly store: boolean;
}

export interface EventHistory {
  /** For each span, the number of recorded events of `query.action` matching every filter, in the same order. */
  count(query: HistoryQuery, spans: readonly TimeSpan[]): Promise<readonly number[]>;
  /** Occurrence time of the first or last matching recorded event before `before` (exclusive); null when none. */
  occurrence(query: HistoryQuery, which: 'first' | 'last', before: number): Promise<number | null>;
  /**
   * Compare-and-store per (policyId, id): true when `value` differs from the stored value or nothing is stored yet.
   * With `store`, the new value is stored when it changed, atomically with the comparison.
   */
  valueChanged(request: ValueChangedRequest): Promise<boolean>;
}

export type PipAnswer =
  | { readonly ok: true; readonly value: unknown; readonly cached?: boolean }
  | { readonly ok: false; readonly cached?: boolean };

export interface PipResolver {
  /**
   * Answers `pip:*` (policy-language.md §8). `ttlMs` is the element's `ttl` (null without one): the resolver owns
   * the cache and timeouts. Within one `decide` call the engine never asks the same (method, parameters) twice.
   */
  resolve(method: string, parameters: readonly NamedValue[], options: { solution: string; ttlMs: number | null }): Promise<PipAnswer>;
}

export interface PxpExecutor {
  /** A synchronous `execute` inside a condition: its boolean answer; anything but `true` counts as false. */
  execute(action: string, parameters: readonly NamedValue[], options: { solution: string }): Promise<boolean>;
}

export interface Clock {
  /** Milliseconds since the epoch; read once per `decide` call and used for every `when` span of that call. */
  now(): number;
}

/** Everything optional: a missing port fails the mechanisms that need it (pip: its default). */
export interface EvaluationPorts {
  readonly history?: EventHistory;
  readonly pip?: PipResolver;
  readonly pxp?: PxpExecutor;
  readonly clock?: Clock;
}
