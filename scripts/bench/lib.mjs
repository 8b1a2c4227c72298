// Shared plumbing of the benchmarks in scripts/bench/: processes that are always stopped, a stack
// of real services on a fresh database and NATS prefix, policy loading with bounded concurrency,
// a keep-alive HTTP client, autocannon in a child process, statistics and tables.
// Plain Node ESM; imports the built workspaces from their dist/ folders.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const BENCH_DIR = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(BENCH_DIR, '..', '..');
export const require = createRequire(import.meta.url);

const distOf = (workspace) => {
  const file = path.join(ROOT, workspace, 'dist', 'index.js');
  if (!existsSync(file)) throw new Error(`${file} is missing; run \`npx turbo run build\` first`);
  return require(file);
};
/** @custos/test-kit and @custos/contracts, built. */
export const testKit = () => distOf('packages/test-kit');
export const contracts = () => distOf('packages/contracts');

/** Node flags of every pdp the benchmarks start; BENCH_PDP_NODE_ARGS (space-separated) replaces them for a comparison. */
export const PDP_NODE_ARGS = (process.env.BENCH_PDP_NODE_ARGS ?? '').split(' ').filter(Boolean);

export const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
export const ADMIN = { id: 'bench-admin', secret: 'bench-admin-secret-0123456789abcdef' };
/** Solution (tenant) of every benchmark policy. */
export const SOLUTION = 'bench';

// ---------------------------------------------------------------------------------------------
// Cleanup: every benchmark registers what it started; everything is undone on success, failure,
// SIGINT and SIGTERM. Child processes still alive when this process exits get SIGKILL.

const children = new Set();
const cleanups = [];

/** Registers an async undo step (run last-in first-out); returns a function that runs it now. */
export function onCleanup(step) {
  const entry = { step, done: false };
  cleanups.push(entry);
  return async () => {
    if (entry.done) return;
    entry.done = true;
    await step();
  };
}

export async function cleanupAll() {
  while (cleanups.length > 0) {
    const entry = cleanups.pop();
    if (entry.done) continue;
    entry.done = true;
    try {
      await entry.step();
    } catch (error) {
      console.error(`cleanup: ${error?.message ?? error}`);
    }
  }
}

let signalled = false;
/** True once SIGINT/SIGTERM arrived: start nothing new. */
export const stopping = () => signalled;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (signalled) return;
    signalled = true;
    console.error(`\n${signal}: stopping everything this benchmark started...`);
    const force = setTimeout(() => process.exit(130), 20_000);
    force.unref();
    cleanupAll().finally(() => process.exit(130));
  });
}
process.on('exit', () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // gone already
      }
    }
  }
});

// ---------------------------------------------------------------------------------------------
// Processes

const TAIL_BYTES = 16 * 1024;

/**
 * Spawns `node [nodeArgs] file [args]`. stdout goes to /dev/null by default (`stdout: 'ignore'`),
 * so whatever the child logs costs it the real write but costs us nothing; `'pipe'` keeps a
 * bounded tail. BENCH_LOG_DIR=<dir> sends that /dev/null output to a file there instead (debugging).
 * stderr is always piped into a bounded tail for failure messages.
 */
export function spawnNode(file, { args = [], nodeArgs = [], env = {}, stdout = 'ignore', label = path.basename(file) } = {}) {
  let outFd;
  let stdoutSpec = stdout;
  if (process.env.BENCH_LOG_DIR && stdout === 'ignore') {
    outFd = openSync(path.join(process.env.BENCH_LOG_DIR, `${label.replace(/[^\w.-]/g, '_')}-${Date.now()}.log`), 'a');
    stdoutSpec = outFd;
  }
  const child = spawn(process.execPath, [...nodeArgs, file, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', stdoutSpec, 'pipe'],
  });
  if (outFd !== undefined) closeSync(outFd);
  children.add(child);
  let tail = '';
  const keep = (chunk) => {
    tail += chunk.toString();
    if (tail.length > TAIL_BYTES) tail = tail.slice(-TAIL_BYTES);
  };
  child.stderr.on('data', keep);
  child.stdout?.on('data', keep);
  // 'close', not 'exit' (as in runWrk): the load generators' figures are their last output, read after they end.
  const exited = new Promise((resolve) =>
    child.once('close', (code, signal) => {
      children.delete(child);
      resolve(code ?? signal);
    }),
  );
  const alive = () => child.exitCode === null && child.signalCode === null;
  const endWith = async (signal, graceMs) => {
    if (alive()) child.kill(signal);
    const timer = setTimeout(() => alive() && child.kill('SIGKILL'), graceMs);
    const result = await exited;
    clearTimeout(timer);
    return result;
  };
  return {
    child,
    pid: child.pid,
    label,
    exited,
    alive,
    tail: () => tail,
    /** SIGTERM (graceful), SIGKILL after `graceMs`. */
    stop: (graceMs = 15_000) => endWith('SIGTERM', graceMs),
    kill: () => endWith('SIGKILL', 5_000),
  };
}

const procStatusMb = (pid, field) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status);
  return match ? Number(match[1]) / 1024 : NaN;
};
/** Resident set size of a process in MB (VmRSS of /proc/<pid>/status). */
export const rssMb = (pid) => procStatusMb(pid, 'VmRSS');
const TICK_MS = 10; // CLK_TCK is 100 on Linux
const statCpuMs = (file) => {
  const text = readFileSync(file, 'utf8');
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime + stime
};
/**
 * CPU time a process used so far, in ms: `total` (every thread, live or ended) and `main` (its main
 * thread; the rest is the log's writer thread, GC helpers and the libuv pool).
 */
export function cpuMs(pid) {
  const total = statCpuMs(`/proc/${pid}/stat`);
  const main = statCpuMs(`/proc/${pid}/task/${pid}/stat`);
  return { total, main, others: total - main };
}

/** Peak resident set size so far in MB (VmHWM). */
export const rssPeakMb = (pid) => procStatusMb(pid, 'VmHWM');

// ---------------------------------------------------------------------------------------------
// HTTP client: node:http with a keep-alive agent (cheaper than fetch on a busy machine).

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
const freshAgent = new http.Agent({ keepAlive: false });

/** One request to 127.0.0.1; resolves {status, headers, text, json(), ms}. Never rejects on HTTP status. */
export function request(method, url, { headers = {}, body, timeoutMs = 30_000, keepAlive = true } = {}) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const payload = body === undefined ? undefined : Buffer.from(body);
    const req = http.request(
      url,
      {
        method,
        agent: keepAlive ? agent : freshAgent,
        headers: payload === undefined ? headers : { ...headers, 'Content-Length': payload.length },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode,
            headers: res.headers,
            text,
            json: () => JSON.parse(text),
            ms: performance.now() - started,
          });
        });
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${url} timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/** Polls until `check()` is truthy; bounded by `timeoutMs`. */
export async function waitUntil(check, { timeoutMs = 30_000, intervalMs = 10, what = 'condition' } = {}) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  while (Date.now() <= deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await sleep(intervalMs);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${lastError.message})` : ''}`);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `rounds` rounds of `load(variant)` over every variant, the order rotated each round so that no variant always
 * runs first or last; each result is logged with `describe(variant, result)`. Results by `variant.key`, in round order.
 */
export async function rotatedRounds(variants, rounds, load, describe) {
  const results = Object.fromEntries(variants.map((v) => [v.key, []]));
  for (let round = 0; round < rounds; round++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(k + round) % variants.length];
      const result = await load(variant);
      results[variant.key].push(result);
      log(`round ${round + 1}/${rounds} ${variant.key}: ${describe(variant, result)}`);
    }
  }
  return results;
}

/** Runs `task(item, index)` over `items` with at most `concurrency` at a time; results in order. */
export async function pool(items, concurrency, task) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

// ---------------------------------------------------------------------------------------------
// Services and stacks

const PORT_VARIABLE = { 'auth-service': 'AUTH_PORT', 'pap-service': 'PAP_PORT', 'pdp-service': 'PDP_PORT' };

/**
 * Starts `apps/<name>/dist/main.js` on a free port and waits for /health/ready.
 * Returns the process handle plus `url`, `port` and `readyMs` (spawn → first 200 of /health/ready).
 * A process that dies with MODULE_NOT_FOUND is started again (up to 3 times, 5 s apart): on this shared
 * machine another engineer's build may be rewriting a dist/ folder at that moment.
 */
export async function startService(name, env, options = {}) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServiceOnce(name, env, options);
    } catch (error) {
      if (!(error.moduleNotFound && attempt < 3)) throw error;
      console.error(`  ! ${name} could not load its modules (a build in progress?); starting it again in 5 s`);
      await sleep(5_000);
    }
  }
}

async function startServiceOnce(name, env, { stdout = 'ignore', nodeArgs = [], readyTimeoutMs = 60_000, pollMs = 10, label, main } = {}) {
  // BENCH_PDP_MAIN=<main.js> runs another build of the pdp (e.g. the previous commit's) for a back-to-back comparison;
  // `main` does so for one process only (the HTTP benchmark's BENCH_PDP_BASELINE_MAIN, side by side in one run).
  const entry =
    main !== undefined
      ? path.resolve(main)
      : name === 'pdp-service' && process.env.BENCH_PDP_MAIN
        ? path.resolve(process.env.BENCH_PDP_MAIN)
        : path.join(ROOT, 'apps', name, 'dist', 'main.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing; run \`npx turbo run build\` first`);
  const port = Number(env[PORT_VARIABLE[name]] ?? (await testKit().freePort()));
  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const proc = spawnNode(entry, {
    nodeArgs,
    env: { LOG_LEVEL: 'info', ...env, [PORT_VARIABLE[name]]: String(port) },
    stdout,
    label: label ?? `${name}-${port}`,
  });
  try {
    const outcome = await waitUntil(
      async () => {
        if (!proc.alive()) return 'exited';
        const answer = await request('GET', `${url}/health/ready`, { keepAlive: false, timeoutMs: 5_000 });
        return answer.status === 200 ? 'ready' : undefined;
      },
      { timeoutMs: readyTimeoutMs, intervalMs: pollMs, what: `${name} on ${url} to be ready` },
    );
    if (outcome === 'exited') throw new Error(`${name} exited with ${await proc.exited} before it was ready`);
  } catch (error) {
    await proc.kill();
    const failure = new Error(`${error.message}\n--- ${name} stderr/stdout tail ---\n${proc.tail().slice(-4000)}`);
    failure.moduleNotFound = /MODULE_NOT_FOUND/.test(proc.tail());
    throw failure;
  }
  const readyMs = performance.now() - started;
  return { ...proc, name, url, port, readyMs };
}

/**
 * auth + pap on a fresh database and a fresh NATS prefix (like test-kit's startStack, but every
 * process is ours: output goes to a sink instead of memory, and pdps are started separately).
 * Everything is undone by `stop()`, which is also registered with the cleanup list.
 */
export async function startCore({ label = 'bench' } = {}) {
  if (signalled) throw new Error('stopping: no new stack');
  const kit = testKit();
  const database = await kit.createTestDatabase(`custos_bench_${label}`);
  const natsPrefix = `custos_bench_${label}_${Math.random().toString(16).slice(2, 10)}`;
  const services = [];
  const stop = onCleanup(async () => {
    await Promise.all(services.map((service) => service.stop()));
    await deleteNatsStream(natsPrefix).catch((error) => console.error(`cleanup: nats stream of ${natsPrefix}: ${error.message}`));
    await database.drop();
  });
  try {
    const authPort = await kit.freePort();
    const env = {
      DATABASE_URL: database.url,
      NATS_URL,
      NATS_PREFIX: natsPrefix,
      AUTH_URL: `http://127.0.0.1:${authPort}`,
      BOOTSTRAP_CLIENT_ID: ADMIN.id,
      BOOTSTRAP_CLIENT_SECRET: ADMIN.secret,
    };
    const auth = await startService('auth-service', { ...env, AUTH_PORT: String(authPort) }, { stdout: 'pipe' });
    services.push(auth);
    const pap = await startService('pap-service', env, { stdout: 'pipe' });
    services.push(pap);
    // A real token from the real /oauth/token (client credentials of the bootstrapped admin).
    const token = await kit.clientToken(auth.url, ADMIN.id, ADMIN.secret);
    // One authenticated call first, so the verifier's key fetch is not part of any measurement.
    await warmVerifier(`${pap.url}/ws/policy-ids`, token, 'GET');
    const pdps = [];
    const core = {
      env,
      database,
      natsPrefix,
      auth,
      pap,
      token,
      pdps,
      /** Starts one pdp replica (stdout to a sink); options as startService. */
      async startPdp(options = {}, extraEnv = {}) {
        const nodeArgs = [...PDP_NODE_ARGS, ...(options.nodeArgs ?? [])];
        // The benchmarks measure what a replica can do, so one tenant's rate quota (PDP_SOLUTION_RATE, 10,000
        // decisions/s by default) is set out of reach; admission still runs. `defaultAdmission` keeps the default.
        const quota = options.defaultAdmission ? {} : { PDP_SOLUTION_RATE: '10000000', PDP_SOLUTION_BURST: '100000000' };
        const { defaultAdmission: _default, ...serviceOptions } = options;
        const pdp = await startService('pdp-service', { ...env, ...quota, ...extraEnv }, { stdout: 'ignore', ...serviceOptions, nodeArgs });
        services.push(pdp);
        pdps.push(pdp);
        pdp.rssAtReadyMb = rssMb(pdp.pid);
        // As for pap: the key fetch happens before, not during, the measurement.
        await warmVerifier(`${pdp.url}/event`, token, 'POST', eventJson('warm-up'));
        return pdp;
      },
      /** Stops one pdp started by startPdp. */
      async stopPdp(pdp) {
        await pdp.stop();
        services.splice(services.indexOf(pdp), 1);
        pdps.splice(pdps.indexOf(pdp), 1);
      },
      stop,
    };
    return core;
  } catch (error) {
    await stop();
    throw error;
  }
}

/** One authenticated call, retried until it is answered with a 2xx (at most 10 s). */
export async function warmVerifier(url, token, method, body) {
  const headers = { Authorization: `Bearer ${token}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  await waitUntil(async () => (await request(method, url, { headers, body })).status < 300, {
    timeoutMs: 10_000,
    intervalMs: 50,
    what: `an authenticated ${method} ${url} to succeed`,
  });
}

/** Removes the JetStream stream pap created under `prefix` from the shared NATS server. */
export async function deleteNatsStream(prefix) {
  const nats = require(require.resolve('nats', { paths: [path.join(ROOT, 'apps', 'pap-service')] }));
  const nc = await nats.connect({ servers: NATS_URL, timeout: 5_000 });
  try {
    const jsm = await nc.jetstreamManager();
    const stream = contracts().policySubjects(prefix).stream;
    try {
      await jsm.streams.delete(stream);
    } catch (error) {
      if (!/not found/i.test(error.message)) throw error;
    }
  } finally {
    await nc.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Policies and events

const NAMESPACES =
  'xmlns="http://www.mydata-control.de/4.0/mydataLanguage" ' +
  'xmlns:event="http://www.mydata-control.de/4.0/event" ' +
  'xmlns:constant="http://www.mydata-control.de/4.0/constant" ' +
  'xmlns:parameter="http://www.mydata-control.de/4.0/parameter"';

export const policyId = (name) => `urn:policy:${SOLUTION}:${name}`;

/** The README's example shape: inhibit Mallory, mask everybody else's first name. One action per policy. */
export function maskPolicy(name, action) {
  return `<policy ${NAMESPACES} id="${policyId(name)}" name="bench ${name}">
  <mechanism event="urn:action:${SOLUTION}:${action}">
    <if>
      <equals>
        <event:string eventParameter="user" jsonPathQuery="$.name.firstName" default=""/>
        <constant:string value="Mallory"/>
      </equals>
      <then><inhibit reason="Mallory is never shown"/></then>
    </if>
    <else>
      <modify eventParameter="user" method="append" jsonPathQuery="$.name.firstName">
        <parameter:string name="suffix" value=" (masked)"/>
      </modify>
    </else>
  </mechanism>
</policy>`;
}

/** Inhibits `action` for every event (for propagation and consistency checks: the decision shows the set). */
export function inhibitPolicy(name, action) {
  return `<policy ${NAMESPACES} id="${policyId(name)}">
  <mechanism event="urn:action:${SOLUTION}:${action}">
    <if>
      <constant:true/>
      <then><inhibit reason="${name}"/></then>
    </if>
  </mechanism>
</policy>`;
}

/** A README-sized event (≈ 250 bytes) for `action` of the bench solution. */
export function eventJson(action, firstName = 'Ann') {
  return JSON.stringify({
    actionId: { scope: SOLUTION, action },
    timestamp: 1763798400000,
    parameters: [
      {
        name: 'user',
        value: { value: { id: 'u1', name: { firstName, lastName: 'Example' }, department: 'hr' }, type: 'com.acme.User', isComplex: true },
      },
    ],
  });
}

const bearer = (token) => ({ Authorization: `Bearer ${token}` });

export async function addPolicy(core, xml) {
  const answer = await request('POST', `${core.pap.url}/ws/policy`, {
    headers: { ...bearer(core.token), 'Content-Type': 'application/xml' },
    body: xml,
  });
  if (answer.status !== 201) throw new Error(`adding a policy answered ${answer.status}: ${answer.text.slice(0, 400)}`);
  return answer;
}

/** Deploys (`deploy`) or revokes (`revoke`) a policy; returns {revision, ms, answer}. */
export async function changePolicy(core, id, change) {
  const answer = await request('POST', `${core.pap.url}/ws/policy/${id}/${change}`, { headers: bearer(core.token) });
  if (answer.status !== 200 || answer.text !== 'true') {
    throw new Error(`${change} of ${id} answered ${answer.status}: ${answer.text.slice(0, 400)}`);
  }
  return { revision: Number(answer.headers['policy-revision']), ms: answer.ms, answer };
}

/**
 * Adds (and optionally deploys) policies `p<from>`…`p<from+count-1>` (action `a<i>`) with bounded
 * concurrency. Returns {count, seconds, perSecond, addMs[], deployMs[], lastRevision}.
 */
export async function loadPolicies(core, { from = 0, count, deploy = true, concurrency = 8, make = (i) => maskPolicy(`p${i}`, `a${i}`), name = (i) => `p${i}` }) {
  const indexes = Array.from({ length: count }, (_, k) => from + k);
  const addMs = [];
  const deployMs = [];
  let lastRevision = 0;
  const started = performance.now();
  await pool(indexes, concurrency, async (i) => {
    addMs.push((await addPolicy(core, make(i))).ms);
    if (deploy) {
      const deployed = await changePolicy(core, policyId(name(i)), 'deploy');
      deployMs.push(deployed.ms);
      lastRevision = Math.max(lastRevision, deployed.revision);
    }
  });
  const seconds = (performance.now() - started) / 1000;
  return { count, seconds, perSecond: count / seconds, addMs, deployMs, lastRevision };
}

/** POST /event on a pdp; resolves {status, allowed, revision, ms, body}. */
export async function decide(core, pdp, action, { minRevision, body = eventJson(action) } = {}) {
  const headers = { ...bearer(core.token), 'Content-Type': 'application/json' };
  if (minRevision !== undefined) headers['Min-Policy-Revision'] = String(minRevision);
  const answer = await request('POST', `${pdp.url}/event`, { headers, body });
  let parsed;
  try {
    parsed = answer.json();
  } catch {
    parsed = undefined;
  }
  return {
    status: answer.status,
    allowed: parsed?.eventAllowed,
    revision: Number(answer.headers['policy-revision']),
    ms: answer.ms,
    body: parsed ?? answer.text,
  };
}

/**
 * A stack (auth + pap, no pdp) whose pap holds `count` deployed policies p0…p<count-1>, grown on
 * demand. Shared by scale and management through `options.shared` when the runner runs both (so
 * 10,000 policies are loaded once); `owned` says whether the caller must stop it.
 */
export async function policyStack(options, label) {
  const cache = options.shared;
  if (cache?.has('policy-stack')) return { fixture: cache.get('policy-stack'), owned: false };
  const core = await startCore({ label });
  const fixture = {
    core,
    count: 0,
    /** Loads so far: {from, to, seconds, perSecond} (add + deploy, bounded concurrency). */
    loads: [],
    async growTo(n, concurrency = 8) {
      if (n <= fixture.count) return;
      log(`adding and deploying policies ${fixture.count}…${n - 1} (concurrency ${concurrency})`);
      const result = await loadPolicies(core, { from: fixture.count, count: n - fixture.count, concurrency });
      fixture.loads.push({ from: fixture.count, to: n, seconds: result.seconds, perSecond: result.perSecond, addMs: result.addMs, deployMs: result.deployMs });
      log(`  ${n - fixture.count} in ${fmt(result.seconds)} s (${fmt(result.perSecond)} add+deploy per s)`);
      fixture.count = n;
      fixture.revision = result.lastRevision;
    },
  };
  if (cache) {
    cache.set('policy-stack', fixture);
    return { fixture, owned: false };
  }
  return { fixture, owned: true };
}

// ---------------------------------------------------------------------------------------------
// Load generation: autocannon in its own process (scripts/bench/load.mjs), so the generator's
// CPU is not this process's and its figures are not skewed by our own event loop.

/**
 * Runs autocannon in a child process. `options` are autocannon's (url, method, headers, body,
 * connections, duration, overallRate, ...). Resolves the summary load.mjs prints.
 */
export async function runLoad(options, { label = 'autocannon' } = {}) {
  const proc = spawnNode(path.join(BENCH_DIR, 'load.mjs'), { args: [JSON.stringify(options)], stdout: 'pipe', label });
  const stop = onCleanup(() => proc.kill());
  const chunks = [];
  proc.child.stdout.on('data', (chunk) => chunks.push(chunk));
  const code = await proc.exited;
  await stop();
  const text = Buffer.concat(chunks).toString('utf8').trim();
  const line = text.split('\n').filter((l) => l.startsWith('{')).pop();
  if (code !== 0 || !line) throw new Error(`load generator failed (${code}): ${proc.tail().slice(-2000)}`);
  return JSON.parse(line);
}

// ---------------------------------------------------------------------------------------------
// Load generation with wrk: a C program that costs far less CPU per request than autocannon. On 2 cores
// shared by the server and the generator, the generator's CPU is taken from the server, so the cheaper
// generator is the one that measures the server (Debian: `apt-get install -y wrk`).

/** The path of the wrk executable on PATH, or undefined. */
export function wrkPath() {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, 'wrk');
    if (existsSync(file)) return file;
  }
  return undefined;
}

// wrk's script: the request, and one JSON line of figures at the end (latencies in µs).
const wrkScript = (method, headers, body) => {
  // A Lua string literal of the UTF-8 bytes: printable ASCII as is, everything else as a decimal escape.
  const lua = (text) =>
    `"${[...Buffer.from(String(text), 'utf8')].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\${String(b).padStart(3, '0')}`)).join('')}"`;
  const lines = [`wrk.method = ${lua(method)}`];
  if (body !== undefined) lines.push(`wrk.body = ${lua(body)}`);
  for (const [name, value] of Object.entries(headers)) lines.push(`wrk.headers[${lua(name)}] = ${lua(value)}`);
  lines.push(
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(\'{"total":%d,"durationUs":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,' +
      '"mean":%.1f,"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d}\\n\',',
    '    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,',
    '    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max))',
    'end',
  );
  return `${lines.join('\n')}\n`;
};

/**
 * One run of wrk (one thread, `connections` keep-alive connections, no pipelining) for `duration` seconds.
 * Resolves the same summary as runLoad (latencies in ms, with µs resolution) plus `generator: 'wrk'`.
 */
export async function runWrk({ url, method = 'GET', headers = {}, body, connections = 50, duration = 10, title = '' }, { label = 'wrk' } = {}) {
  const executable = wrkPath();
  if (!executable) throw new Error('wrk is not installed (Debian: `apt-get install -y wrk`)');
  for (const [name, value] of Object.entries(headers)) {
    if (/[\r\n]/.test(`${name}${value}`)) throw new Error(`header \`${name}\` holds a line break`);
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'custos-wrk-'));
  const script = path.join(dir, 'request.lua');
  writeFileSync(script, wrkScript(method, headers, body));
  const child = spawn(executable, ['-t1', `-c${connections}`, `-d${duration}s`, '--timeout', '10s', '-s', script, url], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  const stop = onCleanup(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const out = [];
  const err = [];
  child.stdout.on('data', (chunk) => out.push(chunk));
  child.stderr.on('data', (chunk) => err.push(chunk));
  // 'close', not 'exit': 'exit' may come before the last of the child's output has been read from its pipes (under
  // load, a wrk process's summary line was then missing although it had exited 0). 'close' comes after both pipes end.
  const code = await new Promise((resolve) => child.once('close', (exitCode, signal) => resolve(exitCode ?? signal)));
  children.delete(child);
  await stop();
  rmSync(dir, { recursive: true, force: true });
  const text = Buffer.concat(out).toString('utf8');
  const line = text.split('\n').filter((l) => l.startsWith('{')).pop();
  if (code !== 0 || !line) throw new Error(`${label} failed (${code}): ${`${text}\n${Buffer.concat(err).toString('utf8')}`.slice(-2000)}`);
  const r = JSON.parse(line);
  const ms = (us) => us / 1000;
  const seconds = r.durationUs / 1e6;
  return {
    generator: 'wrk',
    title,
    url,
    connections,
    seconds,
    total: r.total,
    requestsPerSecond: r.total / seconds,
    latency: { mean: ms(r.mean), p50: ms(r.p50), p90: ms(r.p90), p99: ms(r.p99), p999: ms(r.p999), max: ms(r.max) },
    errors: r.connect + r.read + r.write,
    timeouts: r.timeout,
    non2xx: r.status,
    throughputBytesPerSecond: r.bytes / seconds,
  };
}

/**
 * The cheapest load generator available: wrk when installed, else autocannon (runLoad) with
 * `generator: 'autocannon'` in the result, so the caller can say which one measured.
 */
export async function runCheapLoad(options, { label = 'load' } = {}) {
  if (wrkPath()) return runWrk(options, { label });
  return { generator: 'autocannon', ...(await runLoad(options, { label })) };
}

// ---------------------------------------------------------------------------------------------
// Statistics and output

export function percentile(values, p) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}
/** The middle value (the mean of the two middle values for an even count). */
export function median(values) {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Number formatting: `digits` decimals below 10, fewer above, thousands separated. */
export function fmt(value, digits = 2) {
  if (value === undefined || value === null || Number.isNaN(value)) return '–';
  if (typeof value !== 'number') return String(value);
  const abs = Math.abs(value);
  const decimals = Number.isInteger(value) || abs >= 1000 ? 0 : abs >= 100 ? Math.min(digits, 0) : abs >= 10 ? Math.min(digits, 1) : digits;
  return value.toLocaleString('en-US', { minimumFractionDigits: decimals, maximumFractionDigits: decimals });
}

/** A markdown table (pipe-delimited, aligned), ready to paste into BENCHMARKS.md. */
export function table(header, rows) {
  const cells = [header, ...rows].map((row) => row.map((cell) => String(cell)));
  const widths = header.map((_, c) => Math.max(3, ...cells.map((row) => (row[c] ?? '').length)));
  const line = (row) => `| ${row.map((cell, c) => cell.padEnd(widths[c])).join(' | ')} |`;
  return [line(cells[0]), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.slice(1).map(line)].join('\n');
}

/** A target line: {name, value, target, ok}. `ok` undefined means "not judged" (informational). */
export const target = (name, value, targetText, ok) => ({ name, value, target: targetText, ok });

/** Standalone mode: `node scripts/bench/<name>.mjs [--quick] ...` runs that one benchmark. */
export async function runStandalone(moduleUrl, run) {
  if (!process.argv[1] || pathToFileURL(path.resolve(process.argv[1])).href !== moduleUrl) return;
  const options = parseOptions(process.argv.slice(2));
  let failed = false;
  try {
    const result = await run(options);
    printResult(result);
  } catch (error) {
    failed = true;
    console.error(error?.stack ?? error);
  } finally {
    await cleanupAll();
  }
  process.exit(failed ? 1 : 0);
}

/** --quick, --only a,b, --soak [minutes], --profile. */
export function parseOptions(argv) {
  const options = { quick: false, only: undefined, soakMinutes: undefined, profile: false, json: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--quick') options.quick = true;
    else if (arg === '--profile') options.profile = true;
    else if (arg === '--only') options.only = (argv[++i] ?? '').split(',').filter(Boolean);
    else if (arg.startsWith('--only=')) options.only = arg.slice(7).split(',').filter(Boolean);
    else if (arg === '--json') options.json = argv[++i];
    // history's open-loop mode (scripts/bench/history.mjs): decisions per second, seconds per run, pdp replicas,
    // events of today recorded beforehand, other policies deployed beside.
    else if (arg === '--open-loop') options.openLoop = true;
    else if (['--rate', '--seconds', '--replicas', '--preload', '--policies'].includes(arg)) {
      const value = Number(argv[++i]);
      if (!(value > 0)) throw new Error(`\`${arg}\` needs a positive number`);
      options[arg.slice(2)] = value;
    }
    else if (arg === '--soak') {
      const next = argv[i + 1];
      if (next !== undefined && /^\d+(\.\d+)?$/.test(next)) {
        options.soakMinutes = Number(next);
        i++;
      } else options.soakMinutes = null; // default: 10, or 0.5 with --quick
    } else if (arg.startsWith('--soak=')) options.soakMinutes = Number(arg.slice(7));
    else if (arg === '--help' || arg === '-h') options.help = true;
    else throw new Error(`unknown option \`${arg}\``);
  }
  return options;
}

/** Prints a benchmark's result: its tables, its targets, its notes. */
export function printResult(result) {
  console.log(`\n## ${result.title}\n`);
  for (const block of result.tables ?? []) {
    if (block.caption) console.log(`${block.caption}\n`);
    console.log(table(block.header, block.rows));
    console.log('');
  }
  if (result.targets?.length) {
    console.log(
      table(
        ['target', 'measured', 'wanted', 'met'],
        result.targets.map((t) => [t.name, t.value, t.target, t.ok === undefined ? 'info' : t.ok ? 'yes' : 'NO']),
      ),
    );
    console.log('');
  }
  for (const note of result.notes ?? []) console.log(`- ${note}`);
}

// ---------------------------------------------------------------------------------------------
// CPU profiles (node --cpu-prof)

/** CLOCK_MONOTONIC in µs, the clock of V8's profile timestamps on Linux. */
export const hrtimeUs = () => Number(process.hrtime.bigint() / 1000n);

/** Where a profiled function lives: a package, a workspace, a node: module, or a VM category. */
function moduleOf(url, functionName) {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const clean = url.replace(/^file:\/\//, '');
  const nm = clean.lastIndexOf('/node_modules/');
  if (nm !== -1) {
    const parts = clean.slice(nm + 14).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const workspace = /\/(apps|packages)\/([^/]+)\//.exec(clean);
  if (workspace) return workspace[1] === 'apps' ? workspace[2] : `@custos/${workspace[2]}`;
  if (clean.startsWith('node:')) return clean.split('/').slice(0, 2).join('/');
  return clean;
}

const shortUrl = (url) =>
  url.replace(/^file:\/\//, '').replace(`${ROOT}/`, '').replace(/^.*\/node_modules\//, '');

/**
 * Self time of a .cpuprofile by function and by module, largest first:
 * {functions: [[ms, %, name, where]], modules: [[ms, %, module]], totalMs}.
 */
export function summariseCpuProfile(file, { fromUs = -Infinity, toUs = Infinity } = {}) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  // Sample times are CLOCK_MONOTONIC µs, the clock of process.hrtime (see hrtimeUs), so a window
  // measured in this process selects the samples of the load alone (not start-up compilation).
  // Every sample counts the same (the median sampling interval): on a busy machine a process that
  // was descheduled would otherwise charge the whole gap to whatever it ran last.
  const interval = median(profile.timeDeltas.filter((d) => d > 0));
  let at = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    if (at < fromUs || at > toUs) continue;
    self.set(profile.samples[i], (self.get(profile.samples[i]) ?? 0) + interval);
  }
  const totalUs = [...self.values()].reduce((a, b) => a + b, 0);
  const functions = new Map();
  const modules = new Map();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    const fname = functionName || '(anonymous)';
    const where = url ? `${shortUrl(url)}:${lineNumber + 1}` : '';
    const key = `${fname}\u0000${where}`;
    functions.set(key, (functions.get(key) ?? 0) + us);
    const module = moduleOf(url, fname);
    modules.set(module, (modules.get(module) ?? 0) + us);
  }
  const pct = (us) => `${fmt((us / totalUs) * 100, 1)}`;
  return {
    totalMs: totalUs / 1000,
    functions: [...functions]
      .sort((a, b) => b[1] - a[1])
      .map(([key, us]) => {
        const [fname, where] = key.split('\u0000');
        return [fmt(us / 1000, 0), pct(us), fname, where];
      }),
    modules: [...modules].sort((a, b) => b[1] - a[1]).map(([module, us]) => [fmt(us / 1000, 0), pct(us), module]),
  };
}

export const log = (message) => console.log(`  · ${message}`);

/**
 * One run of the open-loop generator (scripts/bench/open-loop.mjs, its own process, or `script`): requests at a fixed
 * rate, each timed from the moment it was due. Answers its JSON summary.
 */
export async function runOpenLoop(options, script = path.join(BENCH_DIR, 'open-loop.mjs')) {
  const proc = spawnNode(script, { args: [JSON.stringify(options)], stdout: 'pipe', label: `open-loop-${options.title ?? ''}` });
  const stop = onCleanup(() => proc.kill());
  const chunks = [];
  proc.child.stdout.on('data', (chunk) => chunks.push(chunk));
  const code = await proc.exited;
  await stop();
  const line = Buffer.concat(chunks).toString('utf8').trim().split('\n').filter((l) => l.startsWith('{')).pop();
  if (code !== 0 || !line) throw new Error(`open-loop generator failed (${code}): ${proc.tail().slice(-2000)}`);
  return JSON.parse(line);
}
