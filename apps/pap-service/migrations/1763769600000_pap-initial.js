// Schema `pap`: components, policies, the global policy revision and the outbox of changes
// (architecture.md §2). Every statement names its schema, so nothing depends on search_path.

/** @param {import('node-pg-migrate').MigrationBuilder} pgm */
exports.up = (pgm) => {
  pgm.sql(`
    CREATE TABLE pap.components (
      id          text PRIMARY KEY,
      solution    text NOT NULL,
      type        text NOT NULL CHECK (type IN ('PEP', 'PIP', 'PXP')),
      body        jsonb NOT NULL,
      created_at  timestamptz NOT NULL DEFAULT now(),
      updated_at  timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX components_solution_type_idx ON pap.components (solution, type);

    CREATE TABLE pap.policies (
      id           text PRIMARY KEY,
      solution     text NOT NULL,
      name         text,
      description  text,
      xml          text NOT NULL,
      deployed     boolean NOT NULL DEFAULT false,
      created_at   timestamptz NOT NULL DEFAULT now(),
      updated_at   timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX policies_solution_idx ON pap.policies (solution);
    CREATE INDEX policies_deployed_idx ON pap.policies (id) WHERE deployed;

    -- The revision of the deployed set: one row whose lock serialises every change (gap-free).
    CREATE TABLE pap.state (
      singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      revision   bigint NOT NULL DEFAULT 0 CHECK (revision >= 0)
    );
    INSERT INTO pap.state (singleton, revision) VALUES (true, 0);

    -- One row per revision: the PolicyChange message, published to NATS after commit.
    CREATE TABLE pap.outbox (
      revision      bigint PRIMARY KEY,
      message       jsonb NOT NULL,
      created_at    timestamptz NOT NULL DEFAULT now(),
      published_at  timestamptz
    );
    CREATE INDEX outbox_unpublished_idx ON pap.outbox (revision) WHERE published_at IS NULL;
  `);
};

exports.down = (pgm) => {
  pgm.sql(`
    DROP TABLE IF EXISTS pap.outbox;
    DROP TABLE IF EXISTS pap.state;
    DROP TABLE IF EXISTS pap.policies;
    DROP TABLE IF EXISTS pap.components;
  `);
};
