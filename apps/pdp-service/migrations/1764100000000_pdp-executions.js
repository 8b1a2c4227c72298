/**
 * Durable PXP executes (docs/api.md, "Executes"): a decision's executes are written here before its answer is sent,
 * then delivered by a worker that claims them with a lease, so a replica that dies with executes pending leaves them
 * to another replica, or to itself after a restart. Timer ticks get a lease too, and the first time a replica saw a
 * timer is kept, so a tick missed while no replica ran can be fired late, once.
 */

/** @param {import('node-pg-migrate').MigrationBuilder} pgm */
exports.up = (pgm) => {
  pgm.sql(`
    -- One row per asynchronous execute. state: pending (to deliver), done (the PXP answered true), refused (it
    -- answered anything else), failed (attempts spent or no PXP registered; retryable by POST /executions/{id}/retry).
    -- A pending row is delivered by the replica whose claim has not expired (claimed_until, ms since the epoch).
    CREATE TABLE pdp.executions (
      id               uuid PRIMARY KEY,
      decision_id      text NOT NULL,
      timer_id         text,
      policy_id        text NOT NULL,
      action           text NOT NULL,
      solution         text NOT NULL,
      parameters       jsonb NOT NULL,
      state            text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'refused', 'failed')),
      attempts         integer NOT NULL DEFAULT 0,
      max_attempts     integer NOT NULL,
      next_attempt_at  bigint NOT NULL,
      claimed_by       text,
      claimed_until    bigint NOT NULL DEFAULT 0,
      last_error       text,
      created_at       bigint NOT NULL,
      updated_at       bigint NOT NULL
    );
    CREATE INDEX executions_due_idx ON pdp.executions (next_attempt_at) WHERE state = 'pending';
    CREATE INDEX executions_state_idx ON pdp.executions (state, solution, created_at);

    -- A claimed tick is fired until done_at is set; a claim whose lease ran out unfired is taken over.
    ALTER TABLE pdp.timer_ticks ADD COLUMN claimed_until bigint NOT NULL DEFAULT 0;
    ALTER TABLE pdp.timer_ticks ADD COLUMN done_at bigint;
    UPDATE pdp.timer_ticks SET done_at = scheduled_at;

    -- When the replicas first scheduled a timer: no tick before it is ever caught up. revision is the policy revision
    -- of the replica that wrote it, so a replica on an older set never forgets a timer a newer set deployed.
    CREATE TABLE pdp.timer_schedules (
      timer_id   text PRIMARY KEY,
      since      bigint NOT NULL,
      revision   bigint NOT NULL
    );
  `);
};

exports.down = (pgm) => {
  pgm.sql(`
    DROP TABLE IF EXISTS pdp.timer_schedules;
    ALTER TABLE pdp.timer_ticks DROP COLUMN IF EXISTS done_at;
    ALTER TABLE pdp.timer_ticks DROP COLUMN IF EXISTS claimed_until;
    DROP TABLE IF EXISTS pdp.executions;
  `);
};
