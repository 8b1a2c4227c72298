/**
 * Whether an error means the database could not be reached or dropped the connection, rather than refusing what was
 * asked of it: the request may well succeed a moment later, so it is answered 503 (api.md §5), not 500.
 */

/** SQLSTATEs of a lost or refused session: class 08, and the server shutting down, starting or full. */
const SESSION_LOST = /^08[0-9A-Z]{3}$/;
const UNAVAILABLE_SQLSTATES = new Set([
  '57P01', // admin_shutdown: the backend was terminated (pg_terminate_backend, a fast shutdown)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the server is starting or shutting down
  '53300', // too_many_connections
  // read_only_sql_transaction: a session kept on a server that became a standby (a failover, hosts.ts)
  '25006',
  // not a SQLSTATE: a multi-host pool found only a standby where it looked for the primary (hosts.ts)
  'STANDBY',
]);

/** Socket errors while connecting to or talking with the server. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Errors node-postgres raises without a code: a connection that ended under a query, one that did not open in time,
 * a pool whose every connection stayed busy past its connection timeout, a client already broken by an earlier
 * failure. The integration tests of pap produce the first ones against a real server, so a release of pg that
 * rewords them is noticed there.
 */
const DRIVER_MESSAGES = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'timeout expired',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
]);

/** How deep `cause` and AggregateError chains are followed (a cycle must not loop). */
const MAX_DEPTH = 4;

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > MAX_DEPTH) return false;
  const { code, message, cause } = error as { code?: unknown; message?: unknown; cause?: unknown };
  if (typeof code === 'string' && (SESSION_LOST.test(code) || UNAVAILABLE_SQLSTATES.has(code) || SOCKET_CODES.has(code))) return true;
  if (typeof message === 'string' && DRIVER_MESSAGES.has(message)) return true;
  // A host name with several addresses fails with one error per address, gathered (node's connection attempts).
  if (error instanceof AggregateError && error.errors.some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  return isDatabaseUnavailable(cause, depth + 1);
}
