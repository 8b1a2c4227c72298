// Real services started as processes: one service, the core stack on a fresh database and NATS prefix, and a core
// with policies loaded that several benchmarks of one run share.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ADMIN, NATS_URL, PDP_NODE_ARGS, ROOT, contracts, require, testKit } from './base.mjs';
import { request, sleep, waitUntil } from './client.mjs';
import { fmt, log } from './output.mjs';
import { eventJson, loadPolicies } from './policies.mjs';
import { onCleanup, rssMb, spawnNode, stopping } from './processes.mjs';

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
  if (stopping()) throw new Error('stopping: no new stack');
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
