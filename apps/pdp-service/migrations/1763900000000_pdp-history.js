/**
 * Schema `pdp`: the event history and valueChanged state (policy-language.md §6), the shared history secret and
 * the claimed timer ticks (§10). Parameter values are never stored: only keyed hashes (docs/api.md, "Event history").
 */

/** @param {import('node-pg-migrate').MigrationBuilder} pgm */
exports.up = (pgm) => {
  pgm.sql(`
    -- Settings shared by every replica; today only the generated history secret (when PDP_HISTORY_SECRET is unset).
    CREATE TABLE pdp.settings (
      name        text PRIMARY KEY,
      value       text NOT NULL,
      created_at  timestamptz NOT NULL DEFAULT now()
    );

    -- One row per recorded event. occurred_at is ms since the epoch; revision is the policy revision of the replica
    -- that recorded it (retention never deletes what a newer set may still name); keys are the keyed hashes of every
    -- parameter (name, value) and of the value at every filter path deployed policies use for this action.
    CREATE TABLE pdp.history_events (
      id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      action       text NOT NULL,
      solution     text NOT NULL,
      occurred_at  bigint NOT NULL,
      revision     bigint NOT NULL,
      keys         text[] NOT NULL
    );
    CREATE INDEX history_events_action_time_idx ON pdp.history_events (action, occurred_at);
    CREATE INDEX history_events_keys_idx ON pdp.history_events USING gin (keys);

    -- valueChanged state per (policy, block id): the keyed hash of the last value.
    CREATE TABLE pdp.value_changed (
      policy_id   text NOT NULL,
      block_id    text NOT NULL,
      value_hash  text NOT NULL,
      revision    bigint NOT NULL,
      updated_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (policy_id, block_id)
    );

    -- A timer tick is fired by the replica that inserts its row; the primary key makes that exactly one.
    CREATE TABLE pdp.timer_ticks (
      timer_id      text NOT NULL,
      scheduled_at  bigint NOT NULL,
      replica       text NOT NULL,
      claimed_at    timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (timer_id, scheduled_at)
    );

    -- Records one event under the exclusive transaction-level advisory lock of its action (taken first, so the
    -- statements after it see every event committed by the previous holder), at a time never before the last
    -- recorded event of that action (replica clocks may differ). Returns the occurrence time used.
    CREATE FUNCTION pdp.record_event(lock_key bigint, p_action text, p_solution text, p_now bigint, p_revision bigint, p_keys text[])
      RETURNS bigint LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      last_time bigint;
      at_time bigint;
    BEGIN
      PERFORM pg_advisory_xact_lock(lock_key);
      SELECT occurred_at INTO last_time FROM pdp.history_events WHERE action = p_action ORDER BY occurred_at DESC LIMIT 1;
      at_time := GREATEST(p_now, COALESCE(last_time, p_now));
      INSERT INTO pdp.history_events (action, solution, occurred_at, revision, keys)
        VALUES (p_action, p_solution, at_time, p_revision, p_keys);
      RETURN at_time;
    END
    $$;
  `);
};

exports.down = (pgm) => {
  pgm.sql(`
    DROP FUNCTION IF EXISTS pdp.record_event(bigint, text, text, bigint, bigint, text[]);
    DROP TABLE IF EXISTS pdp.timer_ticks;
    DROP TABLE IF EXISTS pdp.value_changed;
    DROP TABLE IF EXISTS pdp.history_events;
    DROP TABLE IF EXISTS pdp.settings;
  `);
};
