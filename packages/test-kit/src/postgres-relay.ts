import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * How a server in front of which the relay stands goes away:
 * - `shutdown`: as PostgreSQL's fast shutdown ends its sessions (a FATAL 57P01 "terminating connection due to
 *   administrator command", then the socket closes);
 * - `reset`: the socket closes without a word (the server was killed, its machine or container is gone);
 * - `silence`: nothing more comes back, the socket stays open (a host that no longer answers: packets dropped).
 */
export type ServerLoss = 'shutdown' | 'reset' | 'silence';

/**
 * A TCP relay in front of a real PostgreSQL server that can play the server going away (`fail`): every connection
 * through it then ends (or falls silent) at once, and every new one completes its start-up and ends (or falls
 * silent) at its first query. That is the moment a client is most exposed: connected, but not yet handed to whoever
 * asked for the connection (service-kit's pool asks every new connection whether it reached the primary).
 * `recover()` relays everything again: the server is back.
 */
export interface PostgresRelay {
  port: number;
  /** `url` (a single-host PostgreSQL URL) with its host and port replaced by the relay's. */
  through(url: string): string;
  fail(how: ServerLoss): void;
  recover(): void;
  /** Connections ended or silenced at their first query since the relay started. */
  lostAtFirstQuery(): number;
  close(): Promise<void>;
}

/** The protocol's SSLRequest and GSSENCRequest codes: the server answers one byte and a start-up message follows. */
const ENCRYPTION_REQUESTS = new Set([80877103, 80877104]);

/** ErrorResponse of a backend ended by a fast shutdown, as PostgreSQL sends it. */
function terminationMessage(): Buffer {
  const fields = [
    ['S', 'FATAL'],
    ['V', 'FATAL'],
    ['C', '57P01'],
    ['M', 'terminating connection due to administrator command'],
  ];
  const body = Buffer.concat([...fields.map(([tag, text]) => Buffer.from(`${tag}${text}\0`)), Buffer.from([0])]);
  const header = Buffer.alloc(5);
  header.write('E', 0);
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

/**
 * Reads the frontend's side of one connection up to its first query: untyped start-up messages (and encryption
 * requests) first, then typed messages until a simple or extended query begins.
 */
class FrontendReader {
  private pending = Buffer.alloc(0);
  private started = false;
  /** Whether the first query has begun (nothing more is read then). */
  queried = false;

  push(chunk: Buffer): void {
    if (this.queried) return;
    this.pending = Buffer.concat([this.pending, chunk]);
    for (;;) {
      const typed = this.started ? 1 : 0;
      if (this.pending.length < typed + 4) return;
      if (this.started) {
        const type = String.fromCharCode(this.pending[0] ?? 0);
        if (type === 'Q' || type === 'P') {
          this.queried = true;
          this.pending = Buffer.alloc(0);
          return;
        }
      }
      const length = this.pending.readInt32BE(typed);
      if (this.pending.length < typed + length) return;
      // An encryption request is followed by the real start-up message; anything else is the start-up message.
      if (!this.started && !ENCRYPTION_REQUESTS.has(this.pending.readInt32BE(4))) this.started = true;
      this.pending = this.pending.subarray(typed + length);
    }
  }
}

interface Pair {
  client: Socket;
  server: Socket;
  /** Lost by the relay: nothing is relayed any more (and the client gets what `lose` sent it). */
  lost: boolean;
}

export async function startPostgresRelay(target: { host: string; port: number }): Promise<PostgresRelay> {
  let failing: ServerLoss | undefined;
  let lostAtFirstQuery = 0;
  const open = new Set<Pair>();
  /** Held (silenced) pairs stay open until the client gives up or the relay recovers or closes. */
  const held = new Set<Pair>();
  const lose = (pair: Pair, how: ServerLoss) => {
    open.delete(pair);
    pair.lost = true;
    if (how === 'silence') {
      held.add(pair);
      return;
    }
    pair.server.destroy();
    if (how === 'shutdown') pair.client.end(terminationMessage());
    else pair.client.resetAndDestroy();
  };

  const relay: Server = createServer((client) => {
    const server = connect(target.port, target.host);
    const pair: Pair = { client, server, lost: false };
    open.add(pair);
    const reader = new FrontendReader();
    client.on('error', () => server.destroy());
    server.on('error', () => undefined);
    client.on('close', () => {
      open.delete(pair);
      held.delete(pair);
      server.destroy();
    });
    server.on('close', () => {
      open.delete(pair);
      if (!pair.lost) client.destroy();
    });
    client.on('data', (chunk: Buffer) => {
      if (pair.lost) return;
      if (!reader.queried) {
        reader.push(chunk);
        if (reader.queried && failing !== undefined) {
          lostAtFirstQuery++;
          lose(pair, failing);
          return;
        }
      }
      server.write(chunk);
    });
    server.on('data', (chunk: Buffer) => {
      if (!pair.lost) client.write(chunk);
    });
  });
  await new Promise<void>((resolve, reject) => {
    relay.once('error', reject);
    relay.listen(0, '127.0.0.1', () => resolve());
  });
  const address = relay.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  const dropHeld = () => {
    for (const pair of [...held]) {
      held.delete(pair);
      pair.client.destroy();
      pair.server.destroy();
    }
  };
  return {
    port,
    through: (url) => {
      const via = new URL(url);
      via.hostname = '127.0.0.1';
      via.port = String(port);
      return via.toString();
    },
    fail: (how) => {
      failing = how;
      for (const pair of [...open]) lose(pair, how);
    },
    recover: () => {
      failing = undefined;
      // The server is back, but a session it lost does not come back with it.
      dropHeld();
    },
    lostAtFirstQuery: () => lostAtFirstQuery,
    close: async () => {
      dropHeld();
      for (const pair of [...open]) {
        pair.client.destroy();
        pair.server.destroy();
      }
      await new Promise<void>((resolve) => relay.close(() => resolve()));
    },
  };
}
