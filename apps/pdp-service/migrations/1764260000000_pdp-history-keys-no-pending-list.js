/**
 * Schema `pdp`: the GIN index of the events' keys takes each insert into the index itself instead of its pending list
 * (issue 26). With the pending list, an insert that finds it past `gin_pending_list_limit` (4 MB) merges the whole
 * list into the index before it returns — tens to hundreds of milliseconds — and that insert runs inside the
 * recording statement, under its action's lock, so every decision of the action on every replica waits for it: the
 * tail of history decisions. Without it each insert does its own small share every time. What is pending now is
 * merged once, here.
 */

/** @param {import('node-pg-migrate').MigrationBuilder} pgm */
exports.up = (pgm) => {
  pgm.sql('ALTER INDEX pdp.history_events_keys_idx SET (fastupdate = off);');
  pgm.sql("SELECT gin_clean_pending_list('pdp.history_events_keys_idx'::regclass);");
};

exports.down = (pgm) => {
  pgm.sql('ALTER INDEX pdp.history_events_keys_idx RESET (fastupdate);');
};
