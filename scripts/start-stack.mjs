#!/usr/bin/env node
// Runs the whole Custos stack in the foreground (what `npm start` runs after the build):
// auth-service first, then — once auth answers GET /health/ready — pap-service and pdp-service.
// When neither DATABASE_URL nor NATS_URL is set and nothing answers on the standard local ports of PostgreSQL and
// NATS, or with --embedded (`npm run start:embedded`), it runs Custos embedded instead: one process, PostgreSQL from
// PGlite kept in .custos/, propagation in process (packages/embedded).
// Every child gets this process's environment; its output lines are prefixed with its name.
// In a terminal the children log pretty lines (LOG_FORMAT=pretty) unless LOG_FORMAT says otherwise.
// SIGINT/SIGTERM are forwarded to every child and we exit once they have all exited;
// a child that exits on its own stops the others and makes us exit non-zero.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env };
const authPort = env.AUTH_PORT || '8082';
// pap and pdp fetch the JWKS from AUTH_URL; keep it pointing at this auth when only AUTH_PORT was moved.
env.AUTH_URL ||= `http://127.0.0.1:${authPort}`;
// The children write to our pipes, not to the terminal: tell them a person is reading, so they print
// compact colored lines instead of JSON (LOG_FORMAT=json keeps JSON; NO_COLOR keeps the colors off).
if (process.stdout.isTTY) {
  env.LOG_FORMAT ||= 'pretty';
  if (env.LOG_FORMAT === 'pretty' && !env.NO_COLOR) env.FORCE_COLOR ||= '1';
}

// pap's web console sends playground events to PDP_URL; keep it pointing at this pdp when only PDP_PORT was moved.
env.PDP_URL ||= `http://127.0.0.1:${env.PDP_PORT || '8080'}`;

const READY_TIMEOUT_MS = Number(env.STACK_READY_TIMEOUT_MS || 60_000);
const STOP_TIMEOUT_MS = Number(env.STACK_STOP_TIMEOUT_MS || 15_000);

const services = [
  { name: 'auth', dir: 'auth-service', port: authPort },
  { name: 'pap', dir: 'pap-service', port: env.PAP_PORT || '8081' },
  { name: 'pdp', dir: 'pdp-service', port: env.PDP_PORT || '8080' },
];
const width = Math.max(...services.map((s) => s.name.length));
const children = new Map(); // name -> ChildProcess, while running
let stopping = false;
let failed = false;

const say = (msg) => process.stdout.write(`${'stack'.padEnd(width)} | ${msg}\n`);

function prefix(stream, name, out) {
  createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
    out.write(`${name.padEnd(width)} | ${line}\n`);
  });
}

function start({ name, dir }) {
  const child = spawn(process.execPath, [join('apps', dir, 'dist', 'main.js')], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Own process group: a Ctrl-C in the terminal reaches the children only once, through us.
    detached: true,
  });
  children.set(name, child);
  prefix(child.stdout, name, process.stdout);
  prefix(child.stderr, name, process.stderr);
  child.on('error', (err) => say(`${name} could not be started: ${err.message}`));
  // 'close' rather than 'exit': it comes after the child's output has been drained.
  child.on('close', (code, signal) => {
    children.delete(name);
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (!stopping) {
      say(`${name} exited unexpectedly (${how}); stopping the stack`);
      stop('SIGTERM', true);
    } else {
      if (code !== 0 && code !== null) failed = true; // killed by our signal, or exit 0, is a clean stop
      say(`${name} stopped (${how})`);
    }
    if (children.size === 0) process.exit(failed ? 1 : 0);
  });
  return child;
}

function stop(signal, isFailure = false) {
  failed ||= isFailure;
  if (stopping) return;
  stopping = true;
  if (children.size === 0) process.exit(failed ? 1 : 0);
  say(`stopping (${signal}) ${[...children.keys()].join(', ')}`);
  for (const child of children.values()) child.kill(signal);
  setTimeout(() => {
    say(`still running after ${STOP_TIMEOUT_MS} ms, killing ${[...children.keys()].join(', ')}`);
    failed = true;
    for (const child of children.values()) child.kill('SIGKILL');
  }, STOP_TIMEOUT_MS).unref();
}

async function isReady(port) {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/health/ready`, { signal: AbortSignal.timeout(1000) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

async function waitReady(service, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!stopping && children.has(service.name)) {
    if (await isReady(service.port)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

/** Whether something accepts a TCP connection at `host:port` within a second. */
function answers(address) {
  const at = address.lastIndexOf(':');
  return new Promise((resolve) => {
    const socket = connect({ host: address.slice(0, at), port: Number(address.slice(at + 1)), timeout: 1000 });
    const done = (up) => {
      socket.destroy();
      resolve(up);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

/** Runs packages/embedded in the foreground and exits with it; signals are passed on. */
function runEmbedded() {
  const entry = join(root, 'packages', 'embedded', 'dist', 'main.js');
  if (!existsSync(entry)) {
    say(`not built: ${entry} (run \`npm run build\`, or use \`npm start\`)`);
    process.exit(1);
  }
  const child = spawn(process.execPath, [entry], { cwd: root, env: process.env, stdio: 'inherit', detached: true });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  process.on('exit', () => child.kill('SIGKILL'));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

// The probe addresses can be moved (CUSTOS_PROBE_POSTGRES, CUSTOS_PROBE_NATS) only so that tests can play a machine
// without PostgreSQL and NATS on one that runs both.
const probes = { postgres: env.CUSTOS_PROBE_POSTGRES || '127.0.0.1:5432', nats: env.CUSTOS_PROBE_NATS || '127.0.0.1:4222' };
const embedded = `running Custos embedded in one process (PostgreSQL from PGlite in ${env.CUSTOS_DATA_DIR || '.custos/'}, propagation in process)`;
if (process.argv.includes('--embedded')) {
  say(embedded);
  runEmbedded();
} else if (!env.DATABASE_URL && !env.NATS_URL && !(await answers(probes.postgres)) && !(await answers(probes.nats))) {
  say(`nothing answers on ${probes.postgres} (PostgreSQL) or ${probes.nats} (NATS) and DATABASE_URL and NATS_URL are unset: ${embedded}`);
  runEmbedded();
} else {
  await startServices();
}

/** The three services as processes of their own, auth first. */
async function startServices() {
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // Last resort (e.g. an exception in this script): leave no orphans behind.
  process.on('exit', () => {
    for (const child of children.values()) child.kill('SIGKILL');
  });

  const missing = services.map((s) => join('apps', s.dir, 'dist', 'main.js')).filter((f) => !existsSync(join(root, f)));
  if (missing.length > 0) {
    say(`not built: ${missing.join(', ')} (run \`npm run build\`, or use \`npm start\`)`);
    process.exit(1);
  }

  const [auth, ...rest] = services;
  start(auth);
  if (!(await waitReady(auth, READY_TIMEOUT_MS))) {
    if (!stopping) {
      say(`auth-service not ready on port ${auth.port} within ${READY_TIMEOUT_MS} ms`);
      stop('SIGTERM', true);
    }
  } else {
    say(`auth-service ready on port ${auth.port}; starting ${rest.map((s) => s.name).join(' and ')}`);
    rest.forEach(start);
    // Informational only: pdp is ready once it holds its first policy snapshot from pap.
    const ready = await Promise.all(rest.map((s) => waitReady(s, READY_TIMEOUT_MS)));
    if (!stopping) {
      if (ready.every(Boolean)) {
        say(`ready: ${services.map((s) => `${s.name} http://127.0.0.1:${s.port}`).join(', ')}`);
      } else {
        say(`not ready yet after ${READY_TIMEOUT_MS} ms: ${rest.filter((_, i) => !ready[i]).map((s) => s.name).join(', ')}`);
      }
    }
  }
}
