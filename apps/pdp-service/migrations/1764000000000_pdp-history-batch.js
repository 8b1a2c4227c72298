/**
 * Group recording (docs/api.md, "Exactness across replicas"): the events of every decision of one action that arrived
 * together at a replica are recorded by one statement under the action's advisory lock, which its transaction
 * holds only for the inserts and commits without waiting for the disk (the pdp waits for durability afterwards, lock
 * released). The decisions are evaluated afterwards, each against the events with an id up to its own: ids of one
 * action grow in lock order, so that is exactly the history it would have seen deciding alone at its turn.
 */

/** @param {import('node-pg-migrate').MigrationBuilder} pgm */
exports.up = (pgm) => {
  pgm.sql(`
    -- Records one event per element of the arrays (in that order) under the lock of their action, at times never
    -- before the last recorded event of the action nor the one before in the arrays; p_keys holds each event's keys
    -- separated by spaces (keys are base64url). Returns, in id order, the events of the action after since_id (with
    -- since_at, the occurrence time of since_id: times of an action never go back), or with since_id null only the
    -- new ones; at most p_limit of the newest. fresh is true when only the new ones are returned although since_id
    -- was given: event since_id is no longer there (deleted), so the caller must forget what it knew.
    CREATE FUNCTION pdp.record_events(lock_key bigint, p_action text, since_id bigint, since_at bigint,
                                      p_solutions text[], p_nows bigint[], p_revisions bigint[], p_keys text[], p_limit int)
      RETURNS TABLE (id bigint, at bigint, keys text[], fresh boolean) LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      last_time bigint;
      at_time bigint;
      first_id bigint;
      first_at bigint;
      new_id bigint;
      starts_over boolean := false;
    BEGIN
      PERFORM pg_advisory_xact_lock(lock_key);
      -- The lock is released at commit; durability is awaited by the caller after it.
      PERFORM set_config('synchronous_commit', 'off', true);
      SELECT e.occurred_at INTO last_time FROM pdp.history_events e WHERE e.action = p_action ORDER BY e.occurred_at DESC LIMIT 1;
      IF since_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM pdp.history_events e WHERE e.id = since_id) THEN
        since_id := NULL;
        since_at := NULL;
        starts_over := true;
      END IF;
      FOR i IN 1 .. coalesce(array_length(p_nows, 1), 0) LOOP
        at_time := GREATEST(p_nows[i], COALESCE(last_time, p_nows[i]));
        last_time := at_time;
        INSERT INTO pdp.history_events (action, solution, occurred_at, revision, keys)
          VALUES (p_action, p_solutions[i], at_time, p_revisions[i], string_to_array(p_keys[i], ' '))
          RETURNING history_events.id INTO new_id;
        IF first_id IS NULL THEN
          first_id := new_id;
          first_at := at_time;
        END IF;
      END LOOP;
      RETURN QUERY
        SELECT n.id, n.at, n.keys, starts_over FROM (
          SELECT e.id, e.occurred_at AS at, e.keys FROM pdp.history_events e
           WHERE e.action = p_action
             AND e.id > COALESCE(since_id, first_id - 1)
             AND e.occurred_at >= COALESCE(since_at, first_at)
           ORDER BY e.id DESC LIMIT p_limit) n
        ORDER BY n.id;
    END
    $$;
  `);
};

exports.down = (pgm) => {
  pgm.sql(`DROP FUNCTION IF EXISTS pdp.record_events(bigint, text, bigint, bigint, text[], bigint[], bigint[], text[], int);`);
};
