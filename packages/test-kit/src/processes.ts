import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
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

/** Ports below this are left to the machine's own services (PostgreSQL 5432, NATS 4222 and 8222, …). */
const LOWEST_PORT = 20_000;
/** Ports this process handed out lately: two calls in a row (a NATS node's client and route ports) never get one twice. */
const handedOut = new Set<number>();

/** The low end of the range the kernel picks ports from for port 0 and for outgoing connections. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function listenable(port: number, host: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, host, () => {
      const address = server.address();
      const chosen = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => resolve(chosen));
    });
  });
}

/**
 * A port that is free right now, below the kernel's ephemeral range when there is room. Tests start services again on
 * the same port (a killed pdp or pap, a NATS node, a PostgreSQL node comes back at its address). A port in the
 * ephemeral range can meanwhile be the local end of any outgoing connection on the machine, or of one in TIME_WAIT
 * for a minute after it closed, and listening on it then fails with EADDRINUSE: the clustered chaos run of issue 23
 * stopped so, a pap's restart refused its own port on a machine busy with other tests. Below the range only another
 * explicit choice of the same port can take it.
 */
export async function freePort(): Promise<number> {
  const low = ephemeralLow();
  if (low - LOWEST_PORT >= 1000) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const candidate = LOWEST_PORT + Math.floor(Math.random() * (low - LOWEST_PORT));
      if (handedOut.has(candidate)) continue;
      // 0.0.0.0: the services listen there, and a listener on 127.0.0.1 alone would refuse them too.
      if ((await listenable(candidate, '0.0.0.0')) === undefined) continue;
      handedOut.add(candidate);
      if (handedOut.size > 1000) handedOut.delete(handedOut.values().next().value as number);
      return candidate;
    }
  }
  const port = await listenable(0, '127.0.0.1');
  if (port === undefined) throw new Error('no free port');
  return port;
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
