// Schema `pap`: the audit trail of management. One row per accepted change (written in the change's own
// transaction) and per refused or failed attempt (written after its answer). Rows older than AUDIT_RETENTION_DAYS are
// deleted by the service's retention job. `seq` orders rows of the same instant; pap merges auth's trail with its own.

/** @param {import('node-pg-migrate').MigrationBuilder} pgm */
exports.up = (pgm) => {
  pgm.sql(`
    CREATE TABLE pap.audit_records (
      seq         bigserial PRIMARY KEY,
      at          timestamptz NOT NULL DEFAULT now(),
      who         text,
      operation   text NOT NULL,
      target      text,
      revision    bigint,
      outcome     text NOT NULL CHECK (outcome IN ('accepted', 'refused', 'failed')),
      status      integer NOT NULL,
      reason      text,
      address     text,
      request_id  text
    );
    CREATE INDEX audit_records_at ON pap.audit_records (at DESC, seq DESC);
    CREATE INDEX audit_records_who ON pap.audit_records (who, at DESC);
    CREATE INDEX audit_records_target ON pap.audit_records (target, at DESC);
  `);
};

exports.down = (pgm) => {
  pgm.sql('DROP TABLE IF EXISTS pap.audit_records;');
};
