import { escapeLiteral } from 'pg';

/**
 * The reads of recorded decisions as literal SQL, so that those asked in the same turn of the event loop travel in
 * one round trip (the simple query protocol takes many statements, but no parameters). Every value passes through
 * `text` (PostgreSQL's own quoting, from pg) or `integer` (a safe integer, or an error): nothing from outside reaches
 * the text unquoted.
 */

/** Bounds of spans as bigint-safe numbers (`from` may be -Infinity in the engine). */
const EARLIEST = Number.MIN_SAFE_INTEGER;
const LATEST = Number.MAX_SAFE_INTEGER;

export const text = (value: string): string => escapeLiteral(value);

export function integer(value: number): string {
  const bounded = value === -Infinity ? EARLIEST : value === Infinity ? LATEST : Math.trunc(value);
  if (!Number.isSafeInteger(bounded)) throw new Error(`\`${String(value)}\` is not an integer a history statement can hold`);
  return String(bounded);
}

const textArray = (values: readonly string[]): string => `ARRAY[${values.map(text).join(',')}]::text[]`;

/** Which events a read sees: the action's, with an id up to `upTo` when given (a recorded decision's view). */
export interface ReadScope {
  readonly action: string;
  readonly keys: readonly string[];
  readonly upTo?: number;
}

const where = (scope: ReadScope): string =>
  `e.action = ${text(scope.action)}${scope.upTo === undefined ? '' : ` AND e.id <= ${integer(scope.upTo)}`}${
    scope.keys.length === 0 ? '' : ` AND e.keys @> ${textArray(scope.keys)}`
  }`;

/** Counts per span, one row `n` per span in order (all windows of one element in one statement). */
export function countStatement(scope: ReadScope, spans: ReadonlyArray<{ from: number; to: number }>): string {
  if (spans.length === 1) {
    const span = spans[0] as { from: number; to: number };
    return `SELECT count(*)::int AS n FROM pdp.history_events e WHERE ${where(scope)} AND e.occurred_at >= ${integer(span.from)} AND e.occurred_at < ${integer(span.to)}`;
  }
  const froms = spans.map((span) => integer(span.from)).join(',');
  const tos = spans.map((span) => integer(span.to)).join(',');
  return `SELECT count(e.id)::int AS n FROM unnest(ARRAY[${froms}]::bigint[], ARRAY[${tos}]::bigint[]) WITH ORDINALITY AS w(f, t, i)
    LEFT JOIN pdp.history_events e ON ${where(scope)} AND e.occurred_at >= w.f AND e.occurred_at < w.t
    GROUP BY w.i ORDER BY w.i`;
}

/** The first or last matching occurrence before `before`: zero or one row `at`. */
export function occurrenceStatement(scope: ReadScope, which: 'first' | 'last', before: number): string {
  return `SELECT e.occurred_at AS at FROM pdp.history_events e WHERE ${where(scope)} AND e.occurred_at < ${integer(before)}
    ORDER BY e.occurred_at ${which === 'first' ? 'ASC' : 'DESC'} LIMIT 1`;
}

/** One batch's events to record (pdp.record_events, migration 1764000000000). */
export interface RecordEventsArguments {
  readonly lockKey: string;
  readonly action: string;
  /** The newest event of the action this replica has seen (the events after it come back). */
  readonly since: { id: number; at: number } | undefined;
  readonly solutions: readonly string[];
  readonly nows: readonly number[];
  readonly revisions: readonly number[];
  /** Each event's keys, separated by spaces. */
  readonly keys: readonly string[];
  readonly limit: number;
}

/** The prepared statement a batch is recorded with, and how its one row is read. */
export interface RecordBatchQuery {
  readonly name: string;
  readonly text: string;
  readonly values: unknown[];
}

/**
 * A batch in one round trip and one statement, prepared once per connection: pdp.record_batch (migration
 * 1764400000000) takes the action's lock, records the events and commits without waiting for the disk (the lock is
 * released at once), then — when answers must wait for the disk — commits a flush that covers it, before it returns.
 * PostgreSQL starts the flush with no turn of this process in between; concurrent flushes of every replica are merged
 * by its own group commit. Values travel as parameters (pg writes arrays as array literals), nothing as SQL text.
 */
export function recordBatchQuery(batch: RecordEventsArguments, durable: boolean): RecordBatchQuery {
  return {
    name: 'custos-history-record-batch',
    text: 'CALL pdp.record_batch($1::bigint, $2::text, $3::bigint, $4::bigint, $5::text[], $6::bigint[], $7::bigint[], $8::text[], $9::int, $10::boolean, NULL)',
    values: [
      lockKeyLiteral(batch.lockKey),
      batch.action,
      batch.since === undefined ? null : integer(batch.since.id),
      batch.since === undefined ? null : integer(batch.since.at),
      batch.solutions,
      batch.nows.map(integer),
      batch.revisions.map(integer),
      batch.keys,
      integer(batch.limit),
      durable,
    ],
  };
}

/** A recorded event as pdp.record_batch returns it: id, occurrence time, keys, and whether the caller must start over. */
export type RecordedTuple = [id: number, at: number, keys: string[], fresh: boolean];

/** The events of pdp.record_batch's one row (its JSON text); an error when it is not what the procedure writes. */
export function recordedEvents(rows: ReadonlyArray<{ events?: unknown }>): RecordedTuple[] {
  const text = rows[0]?.events;
  if (typeof text !== 'string') throw new Error('pdp.record_batch returned no events');
  const events: unknown = JSON.parse(text);
  if (!Array.isArray(events)) throw new Error('pdp.record_batch returned events that are not a list');
  return events as RecordedTuple[];
}

/** A 64-bit lock key (actionLockKey) as a literal: digits only, or an error. */
function lockKeyLiteral(key: string): string {
  if (!/^-?\d{1,20}$/.test(key)) throw new Error(`\`${key}\` is not a lock key`);
  const value = BigInt(key);
  if (value < -(2n ** 63n) || value >= 2n ** 63n) throw new Error(`\`${key}\` is not a lock key`);
  return value.toString();
}
