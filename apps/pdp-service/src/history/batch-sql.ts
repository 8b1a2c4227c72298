import { escapeLiteral } from 'pg';

/**
 * Statements of a batch transaction as literal SQL, so that several of them travel in one round trip (the simple
 * query protocol takes many statements, but no parameters). Every value passes through `text` (PostgreSQL's own
 * quoting rules, from pg) or `integer` (a safe integer, or an error): nothing from outside reaches the text unquoted.
 */

/** Bounds of spans as bigint-safe numbers (`from` may be -Infinity in the engine). */
const EARLIEST = Number.MIN_SAFE_INTEGER;
const LATEST = Number.MAX_SAFE_INTEGER;

export const text = (value: string): string => escapeLiteral(value);

export function integer(value: number): string {
  const bounded = value === -Infinity ? EARLIEST : value === Infinity ? LATEST : Math.trunc(value);
  if (!Number.isSafeInteger(bounded)) throw new Error(`\`${String(value)}\` is not an integer a batch statement can hold`);
  return String(bounded);
}

export const textArray = (values: readonly string[]): string => `ARRAY[${values.map(text).join(',')}]::text[]`;

const keyClause = (keys: readonly string[]): string => (keys.length === 0 ? '' : ` AND e.keys @> ${textArray(keys)}`);

/** Opens the batch: the transaction, the action's lock, and the time of the action's last recorded event. */
export function openStatements(lockKey: string, action: string, synchronousCommit: boolean): string {
  if (!/^-?\d{1,20}$/.test(lockKey)) throw new Error(`\`${lockKey}\` is not an advisory lock key`);
  return [
    synchronousCommit ? 'BEGIN' : 'BEGIN; SET LOCAL synchronous_commit = off',
    `SELECT pg_advisory_xact_lock(${lockKey}::bigint)`,
    `SELECT occurred_at AS at FROM pdp.history_events WHERE action = ${text(action)} ORDER BY occurred_at DESC LIMIT 1`,
  ].join('; ');
}

/** Counts per span, one row `n` per span in order (all windows of one element in one statement). */
export function countStatement(action: string, keys: readonly string[], spans: ReadonlyArray<{ from: number; to: number }>): string {
  if (spans.length === 1) {
    const span = spans[0] as { from: number; to: number };
    return `SELECT count(*)::int AS n FROM pdp.history_events e WHERE e.action = ${text(action)} AND e.occurred_at >= ${integer(span.from)} AND e.occurred_at < ${integer(span.to)}${keyClause(keys)}`;
  }
  const froms = spans.map((span) => integer(span.from)).join(',');
  const tos = spans.map((span) => integer(span.to)).join(',');
  return `SELECT count(e.id)::int AS n FROM unnest(ARRAY[${froms}]::bigint[], ARRAY[${tos}]::bigint[]) WITH ORDINALITY AS w(f, t, i)
    LEFT JOIN pdp.history_events e ON e.action = ${text(action)} AND e.occurred_at >= w.f AND e.occurred_at < w.t${keyClause(keys)}
    GROUP BY w.i ORDER BY w.i`;
}

/** The first or last matching occurrence before `before`: zero or one row `at`. */
export function occurrenceStatement(action: string, keys: readonly string[], which: 'first' | 'last', before: number): string {
  return `SELECT e.occurred_at AS at FROM pdp.history_events e WHERE e.action = ${text(action)} AND e.occurred_at < ${integer(before)}${keyClause(keys)}
    ORDER BY e.occurred_at ${which === 'first' ? 'ASC' : 'DESC'} LIMIT 1`;
}

/** The stored valueChanged hash, its row locked until the batch commits: zero or one row `value_hash`. */
export function storedValueStatement(policyId: string, blockId: string): string {
  return `SELECT value_hash FROM pdp.value_changed WHERE policy_id = ${text(policyId)} AND block_id = ${text(blockId)} FOR UPDATE`;
}

export interface EventRow {
  readonly action: string;
  readonly solution: string;
  readonly at: number;
  readonly revision: number;
  readonly keys: readonly string[];
}

export interface ValueRow {
  readonly policyId: string;
  readonly blockId: string;
  readonly hash: string;
  readonly revision: number;
}

/** The batch's writes and its COMMIT, in one round trip; the last result is COMMIT's (ROLLBACK when it was aborted). */
export function commitStatements(events: readonly EventRow[], values: readonly ValueRow[]): string {
  const statements: string[] = [];
  if (events.length > 0) {
    const rows = events.map(
      (event) => `(${text(event.action)}, ${text(event.solution)}, ${integer(event.at)}, ${integer(event.revision)}, ${textArray(event.keys)})`,
    );
    statements.push(`INSERT INTO pdp.history_events (action, solution, occurred_at, revision, keys) VALUES ${rows.join(', ')}`);
  }
  if (values.length > 0) {
    const rows = values.map((value) => `(${text(value.policyId)}, ${text(value.blockId)}, ${text(value.hash)}, ${integer(Math.max(value.revision, 0))})`);
    statements.push(
      `INSERT INTO pdp.value_changed (policy_id, block_id, value_hash, revision) VALUES ${rows.join(', ')}
       ON CONFLICT (policy_id, block_id) DO UPDATE SET value_hash = EXCLUDED.value_hash, revision = EXCLUDED.revision, updated_at = now()`,
    );
  }
  statements.push('COMMIT');
  return statements.join('; ');
}
