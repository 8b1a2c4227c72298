/** A snapshot could not be fetched or read; receivers retry with backoff. */
export class SnapshotError extends Error {}
