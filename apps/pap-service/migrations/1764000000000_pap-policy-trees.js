// Schema `pap`: the checked tree of each policy (the policy engine's PolicyTree, JSON), computed when the policy is
// added or replaced and shipped beside the XML in snapshots and deploy changes, so pdps compile without reading
// XML. Nullable: rows from before this migration get theirs when a snapshot or change next needs it.

/** @param {import('node-pg-migrate').MigrationBuilder} pgm */
exports.up = (pgm) => {
  pgm.sql('ALTER TABLE pap.policies ADD COLUMN tree jsonb;');
};

exports.down = (pgm) => {
  pgm.sql('ALTER TABLE pap.policies DROP COLUMN IF EXISTS tree;');
};
