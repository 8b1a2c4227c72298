/**
 * A batch of recorded decisions in one statement (issue 26): `CALL pdp.record_batch(…)` does what the pdp used to send
 * as four (BEGIN; the recording through pdp.record_events; COMMIT; a synchronous flush in a transaction of its own).
 * A procedure may commit between its statements, so the recording still commits — without waiting for the disk — and
 * releases its action's lock before the flush, and the flush still covers it (WAL is flushed in order). As one
 * statement it can be prepared once per connection: PostgreSQL no longer parses and plans four statements per batch
 * (nor the arrays written into them as literals), and the pdp reads one row, one text column of JSON, instead of four
 * results. pdp.record_events stays as it is: replicas of the previous build record with it under the same lock.
 */

/** @param {import('node-pg-migrate').MigrationBuilder} pgm */
exports.up = (pgm) => {
  pgm.sql(`
    -- events: pdp.record_events' rows as JSON, [[id, at, keys, fresh], …] in id order (ids and times are below 2^53).
    -- With durable, returns only once the recording is on disk: a transaction that writes one WAL record (a
    -- logical-decoding message, which needs no table and no privilege) commits synchronously whatever the session's
    -- default. An error after the recording's COMMIT (in the flush) leaves the events recorded but not confirmed
    -- durable: the caller must fail their decisions closed all the same.
    CREATE PROCEDURE pdp.record_batch(lock_key bigint, p_action text, since_id bigint, since_at bigint,
                                      p_solutions text[], p_nows bigint[], p_revisions bigint[], p_keys text[],
                                      p_limit int, durable boolean, INOUT events text)
      LANGUAGE plpgsql AS $$
    BEGIN
      SELECT coalesce(json_agg(json_build_array(r.id, r.at, r.keys, r.fresh) ORDER BY r.id), '[]')::text INTO events
        FROM pdp.record_events(lock_key, p_action, since_id, since_at, p_solutions, p_nows, p_revisions, p_keys, p_limit) r;
      -- record_events set synchronous_commit off for this transaction: the lock goes at once, the disk is not waited for.
      COMMIT;
      IF durable THEN
        PERFORM set_config('synchronous_commit', 'on', true), pg_logical_emit_message(true, 'custos:history', 'durable');
      END IF;
    END
    $$;
  `);
};

exports.down = (pgm) => {
  pgm.sql(`DROP PROCEDURE IF EXISTS pdp.record_batch(bigint, text, bigint, bigint, text[], bigint[], bigint[], text[], int, boolean, text);`);
};
