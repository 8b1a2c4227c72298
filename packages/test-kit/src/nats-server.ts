import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { connect as connectTcp } from 'node:net';
import { connect } from 'nats';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './processes';
import { waitFor } from './wait';

export const NATS_BINARY = process.env.NATS_SERVER_BIN ?? '/usr/sbin/nats-server';

export interface OwnNatsServer {
  url: string;
  port: number;
  /** Stops the server (SIGTERM), keeping its JetStream store for a restart. */
  stop(): Promise<void>;
  /** Starts it again on the same port and store. */
  start(): Promise<void>;
  /** Stops it and deletes its store. */
  destroy(): Promise<void>;
}

/** Whether something accepts TCP connections on 127.0.0.1:`port`. */
export function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connectTcp(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * A private nats-server with JetStream, for tests that stop and restart NATS without
 * disturbing anything else that uses the machine's server. With `started: false` the port and
 * URL are reserved but the server only runs after `start()` (NATS that comes up late). With `jetstream: false` it runs
 * without JetStream (a misconfigured server).
 */
export async function startOwnNatsServer({
  started = true,
  jetstream = true,
}: { started?: boolean; jetstream?: boolean } = {}): Promise<OwnNatsServer> {
  if (!existsSync(NATS_BINARY)) throw new Error(`nats-server not found at ${NATS_BINARY} (set NATS_SERVER_BIN)`);
  const port = await freePort();
  const storeDir = mkdtempSync(path.join(tmpdir(), 'custos-nats-'));
  let child: ChildProcess | undefined;

  const start = async () => {
    const store = jetstream ? ['-js', '-sd', storeDir] : [];
    child = spawn(NATS_BINARY, ['-a', '127.0.0.1', '-p', String(port), ...store], { stdio: 'ignore' });
    // Ready means JetStream answers (when on), not merely that the port is open.
    await waitFor(
      async () => {
        if (child?.exitCode !== null) throw new Error(`nats-server exited with ${child?.exitCode}`);
        const nc = await connect({ servers: `nats://127.0.0.1:${port}`, timeout: 500, reconnect: false });
        try {
          if (jetstream) await (await nc.jetstreamManager()).getAccountInfo();
        } finally {
          await nc.close();
        }
        return true;
      },
      { timeoutMs: 15_000, what: `nats-server${jetstream ? ' with JetStream' : ''} on port ${port}` },
    );
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
    running.kill('SIGTERM');
    await exited;
    await waitFor(async () => !(await portAnswers(port)), { timeoutMs: 10_000, what: `port ${port} to close` });
  };
  if (started) await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    start,
    stop,
    destroy: async () => {
      await stop();
      rmSync(storeDir, { recursive: true, force: true });
    },
  };
}
