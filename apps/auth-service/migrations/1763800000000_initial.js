/**
 * Schema `auth`: clients (secrets only as scrypt hashes) and signing keys.
 * @param {import('node-pg-migrate').MigrationBuilder} pgm
 */
exports.up = (pgm) => {
  pgm.createTable(
    { schema: 'auth', name: 'clients' },
    {
      id: { type: 'text', primaryKey: true },
      secret_hash: { type: 'text', notNull: true, check: "secret_hash LIKE 'scrypt$%'" },
      scopes: { type: 'text[]', notNull: true },
      solutions: { type: 'text[]', notNull: true, check: 'cardinality(solutions) > 0' },
      description: { type: 'text', notNull: true, default: '' },
      created_at: { type: 'timestamptz', notNull: true, default: pgm.func('now()') },
      updated_at: { type: 'timestamptz', notNull: true, default: pgm.func('now()') },
    },
  );
  pgm.createTable(
    { schema: 'auth', name: 'signing_keys' },
    {
      kid: { type: 'text', primaryKey: true },
      algorithm: { type: 'text', notNull: true },
      // PKCS#8 PEM. Protecting it at rest (encryption with an operator key) is for the security issue.
      private_key: { type: 'text', notNull: true },
      public_jwk: { type: 'jsonb', notNull: true },
      created_at: { type: 'timestamptz', notNull: true, default: pgm.func('now()') },
      // Null while active; set when rotated out: published (and accepted) until then.
      retires_at: { type: 'timestamptz' },
    },
  );
  pgm.createIndex({ schema: 'auth', name: 'signing_keys' }, ['created_at'], {
    name: 'signing_keys_active_idx',
    where: 'retires_at IS NULL',
  });
};

exports.down = (pgm) => {
  pgm.dropTable({ schema: 'auth', name: 'signing_keys' });
  pgm.dropTable({ schema: 'auth', name: 'clients' });
};
