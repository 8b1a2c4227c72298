// Schema `pap`: each solution's settings (its default decisions, contracts' SolutionSettings), part of what the
// pdps decide with: a change is a revision with an outbox row like a deploy, and snapshots carry them. A solution
// without a row has no settings (the pdps' own defaults apply); setting `{}` deletes its row.

/** @param {import('node-pg-migrate').MigrationBuilder} pgm */
exports.up = (pgm) => {
  pgm.sql(`
    CREATE TABLE pap.solution_settings (
      solution   text PRIMARY KEY,
      settings   jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
  `);
};

exports.down = (pgm) => {
  pgm.sql('DROP TABLE IF EXISTS pap.solution_settings;');
};
