// Schema `pap`: the revision at which each policy's current deployment began (its not deployed → deployed
// change), shipped as `deployedAt` so pdps start valueChanged state afresh for a new deployment. Null while not
// deployed, and for rows deployed before this migration (they ship no `deployedAt` until revoked and redeployed).

/** @param {import('node-pg-migrate').MigrationBuilder} pgm */
exports.up = (pgm) => {
  pgm.sql('ALTER TABLE pap.policies ADD COLUMN deployed_at bigint;');
};

exports.down = (pgm) => {
  pgm.sql('ALTER TABLE pap.policies DROP COLUMN IF EXISTS deployed_at;');
};
