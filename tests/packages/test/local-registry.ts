import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, waitFor } from '@custos/test-kit';

/**
 * A private npm registry (verdaccio) on a random loopback port, with its storage in `dir`. It has no uplink: it
 * serves only what was published to it, so a `@custos/*` name it does not hold is not found rather than fetched
 * from anywhere else.
 */
export interface LocalRegistry {
  url: string;
  /** A token of the one user, who may publish. */
  token: string;
  /** Its log so far, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

const USER = { name: 'release', password: 'release-password-0123' };

function config(dir: string): string {
  // JSON is YAML, and needs no library to write.
  return JSON.stringify({
    storage: path.join(dir, 'storage'),
    auth: { htpasswd: { file: path.join(dir, 'htpasswd'), max_users: 1 } },
    uplinks: {},
    packages: {
      '@custos/*': { access: '$all', publish: '$authenticated', unpublish: '$authenticated' },
      '**': { access: '$all', publish: '$authenticated', unpublish: '$authenticated' },
    },
    web: { enable: false },
    middlewares: { audit: { enabled: false } },
    log: { type: 'stdout', format: 'json', level: 'warn' },
  });
}

export async function startLocalRegistry(dir: string): Promise<LocalRegistry> {
  mkdirSync(dir, { recursive: true });
  const configFile = path.join(dir, 'config.yaml');
  writeFileSync(configFile, config(dir));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const bin = require.resolve('verdaccio/bin/verdaccio');
  const child = spawn(process.execPath, [bin, '--config', configFile, '--listen', `127.0.0.1:${port}`], {
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`verdaccio exited: ${output}`);
        return (await fetch(`${url}/-/ping`).catch(() => undefined))?.ok === true;
      },
      { timeoutMs: 30_000, what: `verdaccio to answer on ${url} (${output})` },
    );
    // The CouchDB-style sign-up npm itself uses for `npm adduser`.
    const signUp = await fetch(`${url}/-/user/org.couchdb.user:${USER.name}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: USER.name, password: USER.password }),
    });
    const body = (await signUp.json()) as { token?: string };
    if (signUp.status !== 201 || typeof body.token !== 'string') throw new Error(`signing up at verdaccio failed: ${signUp.status} ${JSON.stringify(body)}`);
    return { url, token: body.token, output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
