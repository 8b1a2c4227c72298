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

/**
 * Waits until everything committed before it is on disk: a transaction that writes one WAL record (a logical-decoding
 * message, which needs no table and no privilege) and commits synchronously. WAL is flushed in order, so its flush
 * covers a batch committed before it without waiting for the disk. It runs after the batch's lock is released, so
 * no decision of the action waits for another replica's disk flush; the answers of the batch wait for it.
 */
export const DURABLE_STATEMENTS =
  "BEGIN; SET LOCAL synchronous_commit = on; SELECT pg_logical_emit_message(true, 'custos:history', 'durable'); COMMIT";

/** Records a batch (migration 1764000000000): parameters as recordEventsParameters. */
export const RECORD_EVENTS_STATEMENT = 'SELECT id, at, keys, fresh FROM pdp.record_events($1::bigint, $2, $3::bigint, $4::bigint, $5, $6, $7, $8, $9)';
