import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { waitFor } from './wait';

export type ServiceName = 'auth-service' | 'pap-service' | 'pdp-service';

/** The repository root: the folder holding turbo.json above this file. */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'turbo.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('repository root not found');
    dir = parent;
  }
  return dir;
}

/** A port the OS says is free right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningService {
  name: ServiceName;
  url: string;
  port: number;
  process: ChildProcess;
  /** Everything the process printed so far, for assertions and for failure messages. */
  output(): string;
  /** SIGTERM and wait for exit. */
  stop(): Promise<number | null>;
  /** SIGKILL and wait for exit (a crash). */
  kill(): Promise<number | null>;
}

const PORT_VARIABLE: Record<ServiceName, string> = {
  'auth-service': 'AUTH_PORT',
  'pap-service': 'PAP_PORT',
  'pdp-service': 'PDP_PORT',
};

/** Bounds of the decision-record streams of the pdps tests start (the smallest a pdp takes, kept an hour). */
const TEST_RECORD_BOUNDS = { PDP_DECISION_RECORDS_MAX_BYTES: String(1024 * 1024), PDP_DECISION_RECORDS_MAX_AGE_S: '3600' };

/**
 * Starts a built service (`apps/<name>/dist/main.js`) as its own process and waits for it
 * to be ready, as an operator would run it.
 */
export async function startService(
  name: ServiceName,
  env: Record<string, string>,
  { readyTimeoutMs = 30_000, waitReady = true }: { readyTimeoutMs?: number; waitReady?: boolean } = {},
): Promise<RunningService> {
  const port = Number(env[PORT_VARIABLE[name]] ?? (await freePort()));
  const entry = path.join(repoRoot(), 'apps', name, 'dist', 'main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing; run the build first`);
  const child = spawn(process.execPath, [entry], {
    // A pdp's decision-record stream reserves its size bound on the NATS server: small ones for the many test stacks
    // that share the machine's NATS (a test may say otherwise in `env`).
    env: { ...process.env, LOG_LEVEL: 'info', ...TEST_RECORD_BOUNDS, ...env, [PORT_VARIABLE[name]]: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const endWith = async (signal: NodeJS.Signals) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  const service: RunningService = {
    name,
    url,
    port,
    process: child,
    output: () => output,
    stop: () => endWith('SIGTERM'),
    kill: () => endWith('SIGKILL'),
  };
  if (waitReady) {
    try {
      // A process that exits while starting fails at once rather than at the deadline.
      const exitedEarly = exited.then((code) => {
        throw new Error(`${name} exited with ${code} while starting`);
      });
      await Promise.race([
        exitedEarly,
        waitFor(
          async () => {
            const response = await fetch(`${url}/health/ready`);
            return response.status === 200;
          },
          { timeoutMs: readyTimeoutMs, what: `${name} to be ready` },
        ),
      ]);
      exitedEarly.catch(() => undefined);
    } catch (error) {
      await service.kill();
      throw new Error(`${(error as Error).message}\n--- ${name} output ---\n${output.slice(-4000)}`, { cause: error });
    }
  }
  return service;
}
