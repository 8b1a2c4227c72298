/**
 * Schema `pdp`: valueChanged state belongs to one deployment of its policy (docs/api.md): `deployed_at` is the
 * revision at which the deployment that wrote the row began (pap's `deployedAt`), 0 for rows written before this
 * migration and for policies shipped without one. A read matches only its own deployment's row, and an upsert
 * replaces a row of an older deployment, so a policy revoked and deployed again starts afresh.
 */

/** @param {import('node-pg-migrate').MigrationBuilder} pgm */
exports.up = (pgm) => {
  pgm.sql('ALTER TABLE pdp.value_changed ADD COLUMN deployed_at bigint NOT NULL DEFAULT 0;');
};

exports.down = (pgm) => {
  pgm.sql('ALTER TABLE pdp.value_changed DROP COLUMN IF EXISTS deployed_at;');
};
