import { connect, type NatsConnection } from 'nats';
import { deadlineIn, sleep } from './timing/sleep';
import { ConfigError, DEFAULT_DATABASE_URL, DEFAULT_NATS_URL, natsServers, readString, type Env } from './config';

/** An expected reason a service cannot start, already said as one sentence for whoever started it. */
export class StartupError extends Error {}

/** How long a starting pap or pdp keeps trying a NATS server that does not answer yet (one that is starting too). */
export const NATS_START_WAIT_MS = 10_000;
/** Pause between connection attempts while NATS may still be starting. */
const NATS_RETRY_MS = 250;

interface SystemError {
  code?: unknown;
  syscall?: unknown;
  port?: unknown;
  hostname?: unknown;
  message?: unknown;
  severity?: unknown;
}

/** `host:port` of a URL, with the protocol's port when it names none. */
function endpoint(url: string, defaultPort: number): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port === '' ? defaultPort : parsed.port}`;
  } catch {
    return url;
  }
}

function userOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).username) || 'postgres';
  } catch {
    return 'postgres';
  }
}

function source(env: Env, name: string): string {
  return env[name] ? name : `the default, ${name} is unset`;
}

/** What went wrong reaching a server, from a socket error's code; undefined for other errors. */
function socketFailure(error: SystemError): string | undefined {
  switch (error.code) {
    case 'ECONNREFUSED':
      return 'nothing listens there (connection refused)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `the host name \`${String(error.hostname ?? '')}\` does not resolve`;
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'the host cannot be reached';
    case 'ECONNRESET':
      return 'the server closed the connection at once';
    default:
      return undefined;
  }
}

/** What to do about a PostgreSQL error code met while connecting, creating the database or migrating. */
const DATABASE_ADVICE: Record<string, string> = {
  '28000': 'create that role (e.g. `createuser --createdb <name>`) or put an existing user in DATABASE_URL',
  '28P01': 'correct the user and password in DATABASE_URL',
  '3D000': 'create the database, or point DATABASE_URL at one that exists',
  '42501': 'give that user the CREATEDB privilege, or create the database yourself and grant the user CREATE on it',
  '53300': 'raise max_connections on the server, or lower PDP_HISTORY_POOL_SIZE',
  '57P03': 'start the service again once PostgreSQL has started',
};

/**
 * The one sentence that explains an expected startup failure (a configuration mistake, PostgreSQL unreachable or
 * refusing, a port in use), or undefined when the error is not one of those: a bug, worth its stack trace.
 */
export function describeStartupFailure(error: unknown, env: Env): string | undefined {
  if (error instanceof StartupError) return error.message;
  if (error instanceof ConfigError) return `${error.message}; correct that environment variable and start again`;
  if (typeof error !== 'object' || error === null) return undefined;
  const failure = error as SystemError;
  const databaseUrl = readString(env, 'DATABASE_URL', DEFAULT_DATABASE_URL);
  const postgres = `PostgreSQL at \`${endpoint(databaseUrl, 5432)}\` (${source(env, 'DATABASE_URL')})`;
  if (failure.syscall === 'listen' && failure.code === 'EADDRINUSE') {
    return `port \`${String(failure.port)}\` is in use; stop what listens there or choose another port (AUTH_PORT, PAP_PORT, PDP_PORT)`;
  }
  if (failure.syscall === 'connect' || failure.syscall === 'getaddrinfo' || error instanceof AggregateError) {
    const what = socketFailure(failure);
    if (what) return `could not connect to ${postgres}: ${what}; start PostgreSQL there, or set DATABASE_URL to a server that runs`;
  }
  if (typeof failure.message === 'string' && /connection timeout|timeout expired/i.test(failure.message)) {
    return `could not connect to ${postgres}: no answer in time; check that PostgreSQL runs there and accepts connections`;
  }
  const code = typeof failure.code === 'string' ? failure.code : '';
  const advice = DATABASE_ADVICE[code];
  if (advice !== undefined && failure.severity !== undefined) {
    return `${postgres} refused user \`${userOf(databaseUrl)}\`: ${String(failure.message)}; ${advice}`;
  }
  return undefined;
}

/**
 * Connects to NATS once, as a starting pap or pdp needs it, and checks that JetStream is on. Refused or unanswered
 * connections are tried again for `waitMs` (NATS may be starting beside us); a refusal of the credentials or a
 * server without JetStream fails at once. Throws a StartupError that says what to do.
 */
export async function checkNats(env: Env, waitMs = NATS_START_WAIT_MS): Promise<void> {
  const url = readString(env, 'NATS_URL', DEFAULT_NATS_URL);
  const servers = natsServers(url);
  const nats = `NATS at \`${servers.map((server) => endpoint(server, 4222)).join(', ')}\` (${source(env, 'NATS_URL')})`;
  const deadline = deadlineIn(waitMs);
  for (;;) {
    let nc: NatsConnection;
    try {
      nc = await connect({ servers, reconnect: false, timeout: 2000, name: 'startup check' });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 'AUTHORIZATION_VIOLATION' || code === 'AUTHENTICATION_EXPIRED' || code === 'PERMISSIONS_VIOLATION') {
        throw new StartupError(`${nats} refused the credentials (${String(code).toLowerCase()}); put the right user and password or token in NATS_URL`);
      }
      if (deadline.remainingMs() > NATS_RETRY_MS) {
        await sleep(NATS_RETRY_MS);
        continue;
      }
      const why = code === 'CONNECTION_REFUSED' ? 'nothing listens there (connection refused)' : `no connection within ${waitMs / 1000} s (${String(code ?? error)})`;
      throw new StartupError(`could not connect to ${nats}: ${why}; start nats-server with JetStream (\`nats-server -js\`), or set NATS_URL to a server that runs`);
    }
    try {
      await (await nc.jetstreamManager({ timeout: 2000 })).getAccountInfo();
      return;
    } catch (error) {
      const code = String((error as { code?: unknown }).code ?? '');
      const why = code === '503' ? 'JetStream is not enabled there' : `JetStream does not answer (${code || String(error)})`;
      throw new StartupError(`${nats} answers but ${why}; start nats-server with \`-js\` (or \`jetstream {}\` in its configuration)`);
    } finally {
      await nc.close().catch(() => undefined);
    }
  }
}

/**
 * Ends a service whose start failed: one line on stderr, exit code 1. An expected condition is said in the sentence
 * of describeStartupFailure; anything else is a bug and keeps its stack trace.
 */
export function failStartup(service: string, error: unknown, env: Env): never {
  const sentence = describeStartupFailure(error, env);
  const text = sentence ?? (error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.stderr.write(`${service} cannot start: ${text}\n`);
  process.exit(1);
}
