/**
 * The pdp's own schema `pdp` (node-pg-migrate creates it before this runs).
 * It will hold the event history and valueChanged state (policy-language.md §6); nothing yet.
 */
exports.up = () => {};

exports.down = () => {};
