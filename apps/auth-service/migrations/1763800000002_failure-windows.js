/**
 * Failed token requests counted in the database, so that every auth replica sees the same counts: one row per
 * key (`client:<id>` or `source:<address>`) and open window. Expired windows are deleted by the replicas.
 * @param {import('node-pg-migrate').MigrationBuilder} pgm
 */
exports.up = (pgm) => {
  pgm.createTable(
    { schema: 'auth', name: 'failure_windows' },
    {
      key: { type: 'text', primaryKey: true },
      // Milliseconds since the epoch, by the clock of the replica that opened the window.
      expires_at_ms: { type: 'bigint', notNull: true },
      failures: { type: 'integer', notNull: true, check: 'failures >= 0' },
    },
  );
  pgm.createIndex({ schema: 'auth', name: 'failure_windows' }, ['expires_at_ms'], { name: 'failure_windows_expiry_idx' });
};

exports.down = (pgm) => {
  pgm.dropTable({ schema: 'auth', name: 'failure_windows' });
};
