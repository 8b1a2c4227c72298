import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort, waitFor } from '@custos/test-kit';

const run = promisify(execFile);
const BIN = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * A PostgreSQL cluster of the test's own, in a temporary directory on a free port, so the test can crash and restart
 * it without touching the machine's server. initdb refuses to run as root: as root the cluster runs as `postgres`.
 */
export interface OwnPostgres {
  port: number;
  /** A URL for database `name` on this cluster (created by the services on first start). */
  url(name: string): string;
  /** Stops like a crash (`-m immediate`: no checkpoint, recovery at the next start). */
  crash(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

function asOwner(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

async function owned(command: string, args: string[]): Promise<void> {
  const [file, fileArgs] = asOwner(command, args);
  await run(file, fileArgs, { timeout: 60_000 });
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const dir = mkdtempSync(path.join(tmpdir(), 'custos-pg-'));
  if (process.getuid?.() === 0) {
    const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
    chownSync(dir, await id('-u'), await id('-g'));
  }
  const data = path.join(dir, 'data');
  const port = await freePort();
  const url = (name: string) => `postgres://postgres@127.0.0.1:${port}/${name}`;
  await owned(path.join(BIN, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--no-instructions']);
  // fsync off: the machine never crashes under the test, only the server does, and the OS keeps what it wrote.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c full_page_writes=off`;
  const start = async () => {
    await owned(path.join(BIN, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'log'), '-o', options, '-w', '-t', '60', 'start']);
    await waitFor(
      async () => {
        const client = new Client({ connectionString: url('postgres'), connectionTimeoutMillis: 1000 });
        await client.connect();
        await client.end();
        return true;
      },
      { timeoutMs: 30_000, what: `postgres on port ${port}` },
    );
  };
  const stop = async (mode: 'immediate' | 'fast') => {
    await owned(path.join(BIN, 'pg_ctl'), ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']).catch(() => undefined);
  };
  await start();
  return {
    port,
    url,
    crash: () => stop('immediate'),
    start,
    destroy: async () => {
      await stop('immediate');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
