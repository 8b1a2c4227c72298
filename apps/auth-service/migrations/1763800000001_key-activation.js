/**
 * Signing-key rotation without downtime: a new key is published (JWKS) for a while before it signs, so every
 * verifier that fetches the key set in that time already knows it when the first token signed with it arrives.
 * `activates_at`: from when the key may sign (existing keys: since they were created).
 * @param {import('node-pg-migrate').MigrationBuilder} pgm
 */
exports.up = (pgm) => {
  pgm.addColumn({ schema: 'auth', name: 'signing_keys' }, { activates_at: { type: 'timestamptz' } });
  pgm.sql('UPDATE auth.signing_keys SET activates_at = created_at');
  pgm.alterColumn({ schema: 'auth', name: 'signing_keys' }, 'activates_at', { notNull: true, default: pgm.func('now()') });
};

exports.down = (pgm) => {
  pgm.dropColumn({ schema: 'auth', name: 'signing_keys' }, 'activates_at');
};
