import { Client, Pool, type ClientConfig, type PoolClient, type PoolConfig } from 'pg';
import type { Logger } from '../observability/logger';

/**
 * `DATABASE_URL` may name several servers, as libpq does: `postgres://user@h1:5432,h2:5433/custos` (the form
 * pg_auto_failover's `pg_autoctl show uri` prints), optionally with `target_session_attrs=read-write`. node-postgres
 * connects to one host only, so such a URL is split here into one URL per host, and a pool connects to whichever of
 * them is writable (the primary), looking again when a connection fails or finds a standby.
 */
export function databaseHosts(url: string): { urls: string[]; multiHost: boolean } {
  const match = /^([a-z][a-z0-9+.-]*:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/i.exec(url);
  if (!match) return { urls: [url], multiHost: false };
  const [, scheme = '', userinfo = '', hostList = '', rest = ''] = match;
  const hosts = hostList.split(',').filter((host) => host !== '');
  const [path, query] = splitQuery(rest);
  const params = new URLSearchParams(query);
  const readWrite = params.get('target_session_attrs');
  params.delete('target_session_attrs');
  if (hosts.length <= 1 && readWrite === null) return { urls: [url], multiHost: false };
  const tail = params.toString() !== '' ? `${path}?${params.toString()}` : path;
  return { urls: (hosts.length === 0 ? [''] : hosts).map((host) => `${scheme}${userinfo}${host}${tail}`), multiHost: true };
}

function splitQuery(rest: string): [string, string] {
  const at = rest.indexOf('?');
  return at < 0 ? [rest, ''] : [rest.slice(0, at), rest.slice(at + 1)];
}

/** A server that accepted the connection but is a standby (read-only): not the primary the pool looks for. */
class StandbyServerError extends Error {
  readonly code = 'STANDBY';
}

/** How long asking one server whether it is the primary may take, connecting included, unless the URL says. */
const ASK_TIMEOUT_MS = 2000;

/**
 * Whether the server is a primary (true), a standby (false), or why it could not be asked (the error), within
 * `connectionTimeoutMillis` for the connection and as long again for the question: a server that accepted the
 * connection and then fell silent (its host gone) must not hold up the search for the primary.
 */
async function isWritable(config: ClientConfig): Promise<boolean | Error> {
  const timeoutMs = config.connectionTimeoutMillis ?? ASK_TIMEOUT_MS;
  const client = new Client({ ...config, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs });
  client.on('error', () => undefined);
  let answered = false;
  try {
    await client.connect();
    const { rows } = await client.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
    answered = true;
    return rows[0]?.standby === false;
  } catch (error) {
    // No `instanceof Error`: a socket's error may come from another realm (a test runner's sandbox) and must keep its
    // `code` (ECONNREFUSED) for the start-up sentence.
    return typeof error === 'object' && error !== null && 'message' in error ? (error as Error) : new Error(String(error));
  } finally {
    // A server that did not answer would not answer the goodbye either: its socket is cut (as pg's pool does).
    if (answered) await client.end().catch(() => undefined);
    else (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  }
}

/**
 * Which of several servers is the primary: the first of them, in the order given, that accepts a connection and is
 * not in recovery (libpq's `target_session_attrs=read-write`). A failure of the current one starts one search, which
 * every caller shares; until it ends, connections go on to the server it was.
 */
export class PrimaryTarget {
  private index = 0;
  private searching: Promise<boolean> | undefined;
  /** Searches started after a failure: a checkout that failed without one (a full pool) is not retried. */
  searches = 0;

  constructor(
    readonly urls: readonly string[],
    private readonly logger?: Logger,
  ) {}

  current(): string {
    return this.urls[this.index] ?? '';
  }

  /** `url` failed (no connection, or a standby): look for the primary again, unless a search already moved on. */
  failed(url: string): void {
    if (url !== this.current() || this.searching) return;
    this.searches++;
    this.searching = this.search().finally(() => (this.searching = undefined));
  }

  /** Waits for a search under way, if any: whether it found a primary (true without a search). */
  async settled(): Promise<boolean> {
    return (await this.searching) ?? true;
  }

  /**
   * Searches now and returns the primary's URL. When none is one, throws why the last server that could not be asked
   * failed (so a refused password or a missing database reads as such at startup), else that all are standbys.
   */
  async resolve(): Promise<string> {
    if (await this.search()) return this.current();
    throw this.lastError ?? new Error(`no writable server among ${this.urls.map(hostOf).join(', ')}: all are standbys`);
  }

  private lastError: Error | undefined;

  private async search(): Promise<boolean> {
    this.lastError = undefined;
    for (const [index, url] of this.urls.entries()) {
      const writable = await isWritable({ connectionString: url });
      if (typeof writable !== 'boolean') this.lastError = writable;
      if (writable === true) {
        if (index !== this.index) this.logger?.warn({ from: hostOf(this.current()), to: hostOf(url) }, 'database primary moved');
        this.index = index;
        return true;
      }
    }
    // None answers as primary right now (a failover under way): the next connection tries the next one.
    this.index = (this.index + 1) % this.urls.length;
    return false;
  }
}

/** `host:port` of a single-host URL, for logs (never the password). */
function hostOf(url: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#]*)/i.exec(url)?.[1] ?? '?';
}

/**
 * A pg Client class for a pool over several servers: each new connection goes to the current primary and checks
 * that it is one (not in recovery); a connection that fails, or finds a standby, makes the target search again.
 */
function primaryClient(target: PrimaryTarget): typeof Client {
  return class PrimaryClient extends Client {
    private readonly target: string;

    constructor(config?: ClientConfig) {
      const url = target.current();
      super({ ...config, connectionString: url });
      this.target = url;
    }

    override connect(): Promise<Client>;
    override connect(callback: ((err: Error) => void) | ((err: null, c: Client) => void)): void;
    override connect(callback?: ((err: Error) => void) | ((err: null, c: Client) => void)): Promise<Client> | void {
      // Connected, the client emits `error` when its server goes away (a primary shutting down ends every backend),
      // and an `error` without a listener ends the process. The pool listens only once it has the client, after the
      // check below: until then the check's query fails with the error, and this listener keeps it from going on.
      const checking = (): void => undefined;
      this.on('error', checking);
      const checked = super
        .connect()
        .then(async () => {
          const { rows } = await this.query<{ standby: boolean }>('SELECT pg_is_in_recovery() AS standby');
          if (rows[0]?.standby !== false) {
            await this.end().catch(() => undefined);
            throw new StandbyServerError(`${hostOf(this.target)} is a standby (read-only), not the primary`);
          }
          return this as Client;
        })
        .catch((error: unknown) => {
          target.failed(this.target);
          throw error;
        });
      // The pool's callback adds its listener first thing; only then is this one taken off.
      const handedOver = () => this.off('error', checking);
      if (callback === undefined) {
        void checked.then(handedOver, handedOver);
        return checked;
      }
      checked.then(
        (client) => {
          (callback as (err: null, c: Client) => void)(null, client);
          handedOver();
        },
        (error: unknown) => {
          (callback as (err: Error) => void)(error as Error);
          handedOver();
        },
      );
    }
  };
}

/**
 * A pool over several servers (createPool with a multi-host URL): a checkout whose connection failed or found a
 * standby waits for the search it started and tries once more, at the primary it found: like libpq, which tries the
 * hosts in turn within one connect, a caller sees an error only when no server is the primary right now.
 */
export class PrimaryPool extends Pool {
  constructor(
    private readonly target: PrimaryTarget,
    config: PoolConfig,
  ) {
    super({ ...config, Client: primaryClient(target) });
  }

  override connect(): Promise<PoolClient>;
  override connect(callback: (err: Error | undefined, client: PoolClient | undefined, done: (release?: unknown) => void) => void): void;
  override connect(
    callback?: (err: Error | undefined, client: PoolClient | undefined, done: (release?: unknown) => void) => void,
  ): Promise<PoolClient> | void {
    const attempt = () => super.connect();
    const searches = this.target.searches;
    const connected = attempt().catch(async (error: unknown) => {
      if (this.ending || this.target.searches === searches || !(await this.target.settled())) throw error;
      return attempt();
    });
    if (callback === undefined) return connected;
    connected.then(
      (client) => callback(undefined, client, (release?: unknown) => client.release(release as Error | boolean | undefined)),
      (error: unknown) => callback(error as Error, undefined, () => undefined),
    );
  }
}
