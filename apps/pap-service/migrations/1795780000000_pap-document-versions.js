// Schema `pap`: every stored text of a policy or timer as a numbered version, with who stored it (the token's client
// id), when, and the request that did. A document's versions go with it when it is removed (ON DELETE CASCADE): they
// are its history, not an archive of removed documents. Documents stored before this migration become version 1,
// of unknown author and request (null), dated by their last change.

/** @param {import('node-pg-migrate').MigrationBuilder} pgm */
exports.up = (pgm) => {
  pgm.sql(`
    CREATE TABLE pap.policy_versions (
      id          text NOT NULL REFERENCES pap.policies (id) ON DELETE CASCADE,
      number      integer NOT NULL CHECK (number >= 1),
      xml         text NOT NULL,
      client_id   text,
      request_id  text,
      created_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (id, number)
    );
    CREATE TABLE pap.timer_versions (
      id          text NOT NULL REFERENCES pap.timers (id) ON DELETE CASCADE,
      number      integer NOT NULL CHECK (number >= 1),
      xml         text NOT NULL,
      client_id   text,
      request_id  text,
      created_at  timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (id, number)
    );
    INSERT INTO pap.policy_versions (id, number, xml, created_at) SELECT id, 1, xml, updated_at FROM pap.policies;
    INSERT INTO pap.timer_versions (id, number, xml, created_at) SELECT id, 1, xml, updated_at FROM pap.timers;
  `);
};

exports.down = (pgm) => {
  pgm.sql('DROP TABLE IF EXISTS pap.timer_versions; DROP TABLE IF EXISTS pap.policy_versions;');
};
