/**
 * Revoked clients and tokens, until the last token they cover has expired. `id` is the SHA-256 digest
 * (base64url) of the client id (`sub`) or token id (`jti`), as published at GET /oauth/revocations.
 * `not_after` (`sub` only): tokens issued (iat, seconds) at or before it are revoked.
 * @param {import('node-pg-migrate').MigrationBuilder} pgm
 */
exports.up = (pgm) => {
  pgm.createTable(
    { schema: 'auth', name: 'revocations' },
    {
      type: { type: 'text', notNull: true, check: "type IN ('sub', 'jti')" },
      id: { type: 'text', notNull: true },
      not_after: { type: 'bigint' },
      expires_at: { type: 'bigint', notNull: true },
      created_at: { type: 'timestamptz', notNull: true, default: pgm.func('now()') },
    },
    { constraints: { primaryKey: ['type', 'id'] } },
  );
  pgm.createIndex({ schema: 'auth', name: 'revocations' }, ['expires_at'], { name: 'revocations_expiry_idx' });
};

exports.down = (pgm) => {
  pgm.dropTable({ schema: 'auth', name: 'revocations' });
};
