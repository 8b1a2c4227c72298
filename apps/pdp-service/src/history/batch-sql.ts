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
 * message, which needs no table and no privilege) and commits synchronously whatever the session's default (the
 * setting is local to it, and read when it commits). WAL is flushed in order, so its flush covers the recording
 * transaction before it without that transaction holding the action's lock during the flush. One statement: after
 * the recording's COMMIT it runs in a transaction of its own, committed at the end of the message.
 */
const DURABLE_STATEMENT = "SELECT set_config('synchronous_commit', 'on', true), pg_logical_emit_message(true, 'custos:history', 'durable')";

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

/** Where the rows of pdp.record_events are among the results of recordBatchStatements (after its BEGIN). */
export const RECORDED_RESULT = 1;

/**
 * A batch in one round trip: its recording transaction (the action's lock held for the inserts only; it commits
 * without waiting for the disk, so the lock is released at once), then — when answers must wait for the disk — the
 * flush that covers it. One message, so PostgreSQL starts the flush as soon as the recording commits, with no turn
 * of this process in between; concurrent flushes of every replica are merged by PostgreSQL's own group commit. An
 * error anywhere skips the rest of the message and leaves the connection inside an aborted transaction: its client
 * must not be reused.
 */
export function recordBatchStatements(batch: RecordEventsArguments, durable: boolean): string {
  const record =
    `BEGIN; SELECT id, at, keys, fresh FROM pdp.record_events(${lockKeyLiteral(batch.lockKey)}::bigint, ${text(batch.action)}, ` +
    `${batch.since === undefined ? 'NULL' : integer(batch.since.id)}::bigint, ${batch.since === undefined ? 'NULL' : integer(batch.since.at)}::bigint, ` +
    `${textArray(batch.solutions)}, ${bigintArray(batch.nows)}, ${bigintArray(batch.revisions)}, ${textArray(batch.keys)}, ${integer(batch.limit)}); COMMIT`;
  return durable ? `${record}; ${DURABLE_STATEMENT}` : record;
}

/** A 64-bit lock key (actionLockKey) as a literal: digits only, or an error. */
function lockKeyLiteral(key: string): string {
  if (!/^-?\d{1,20}$/.test(key)) throw new Error(`\`${key}\` is not a lock key`);
  const value = BigInt(key);
  if (value < -(2n ** 63n) || value >= 2n ** 63n) throw new Error(`\`${key}\` is not a lock key`);
  return value.toString();
}

const bigintArray = (values: readonly number[]): string => `ARRAY[${values.map(integer).join(',')}]::bigint[]`;
