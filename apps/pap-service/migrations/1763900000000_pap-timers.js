// Schema `pap`: timer documents (policy-language.md §10), managed like policies. A deployed timer travels to the
// pdps in the same revisioned changes as policies (contracts/nats.ts: DeployedPolicy with a `urn:timer:` id).

/** @param {import('node-pg-migrate').MigrationBuilder} pgm */
exports.up = (pgm) => {
  pgm.sql(`
    CREATE TABLE pap.timers (
      id           text PRIMARY KEY,
      solution     text NOT NULL,
      description  text,
      cron         text NOT NULL,
      xml          text NOT NULL,
      deployed     boolean NOT NULL DEFAULT false,
      created_at   timestamptz NOT NULL DEFAULT now(),
      updated_at   timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX timers_solution_idx ON pap.timers (solution);
    CREATE INDEX timers_deployed_idx ON pap.timers (id) WHERE deployed;
  `);
};

exports.down = (pgm) => {
  pgm.sql('DROP TABLE IF EXISTS pap.timers;');
};
