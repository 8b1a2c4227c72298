// Embedded mode (issue 12): `packages/embedded/dist/main.js`, the three services in one process on PGlite with
// in-process propagation. Start = spawn → its `custos embedded ready` line, on a fresh data folder (the database is
// created) and again on the same folder (restarts). Memory = VmRSS of the process at ready and its peak (VmHWM).
// Then decisions: pure ones (no database), history-using ones (one transaction each on the one shared connection),
// and history-using ones while pap adds and deploys policies on the same connection. Informational: no targets.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as lib from './lib.mjs';

export const name = 'embedded';
export const title = 'Embedded — one process on PGlite: start, memory, decisions on one shared connection';

const MAIN = path.join(lib.ROOT, 'packages', 'embedded', 'dist', 'main.js');
const NS = 'xmlns="http://www.mydata-control.de/4.0/mydataLanguage" xmlns:constant="http://www.mydata-control.de/4.0/constant"';

const countingPolicy = (id, action) => `<policy ${NS} id="${id}">
  <mechanism event="urn:action:${lib.SOLUTION}:${action}">
    <if><greater><count><eventOccurrence event="urn:action:${lib.SOLUTION}:${action}"/><when fixedTime="always"/></count><constant:number value="100000000"/></greater>
      <then><inhibit/></then></if>
    <else><allow/></else>
  </mechanism>
</policy>`;

export async function run(options = {}) {
  const quick = Boolean(options.quick);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'custos-bench-embedded-'));
  const stopCleanup = lib.onCleanup(() => rmSync(dataDir, { recursive: true, force: true }));
  const kit = lib.testKit();
  const ports = { auth: await kit.freePort(), pap: await kit.freePort(), pdp: await kit.freePort() };
  const url = (service) => `http://127.0.0.1:${ports[service]}`;
  const env = {
    CUSTOS_DATA_DIR: dataDir,
    AUTH_PORT: String(ports.auth),
    PAP_PORT: String(ports.pap),
    PDP_PORT: String(ports.pdp),
    BOOTSTRAP_CLIENT_ID: lib.ADMIN.id,
    BOOTSTRAP_CLIENT_SECRET: lib.ADMIN.secret,
    LOG_LEVEL: 'warn',
  };
  try {
    const starts = [];
    let running;
    for (const kind of ['first start (creates the database)', 'restart', 'restart']) {
      if (running) await running.proc.stop();
      running = await start(env, kind);
      starts.push(running);
      lib.log(`${kind}: ready in ${lib.fmt(running.readyMs, 0)} ms, RSS ${lib.fmt(running.rssReady, 0)} MB (peak ${lib.fmt(running.rssPeak, 0)})`);
    }
    const decisions = await decide(url, quick);
    decisions.rssAfter = lib.rssMb(running.proc.pid);
    await running.proc.stop();

    const rows = starts.map((s) => [s.kind, lib.fmt(s.readyMs, 0), lib.fmt(s.rssReady, 0), lib.fmt(s.rssPeak, 0)]);
    return {
      name,
      title,
      tables: [
        { caption: 'spawn → ready line; MB', header: ['start', 'ms', 'RSS at ready', 'peak RSS'], rows },
        {
          caption: `decisions on one pdp (${decisions.count} each); ms`,
          header: ['decisions', 'concurrency', 'per second', 'p50', 'p99'],
          rows: decisions.rows,
        },
      ],
      targets: [
        lib.target('first start', `${lib.fmt(starts[0].readyMs / 1000, 1)} s, ${lib.fmt(starts[0].rssReady, 0)} MB`, 'none (informational)', undefined),
        lib.target('restart', `${lib.fmt(lib.median(starts.slice(1).map((s) => s.readyMs)) / 1000, 1)} s, ${lib.fmt(lib.median(starts.slice(1).map((s) => s.rssReady)), 0)} MB`, 'none (informational)', undefined),
      ],
      notes: [
        `RSS after the decisions: ${lib.fmt(decisions.rssAfter, 0)} MB.`,
        'History-using decisions take the one PGlite connection for their transaction; pap writes and token requests queue for it too. Pure decisions never touch it.',
      ],
      figures: { starts, decisions },
    };
  } finally {
    await stopCleanup();
  }
}

async function start(env, kind) {
  const proc = lib.spawnNode(MAIN, { env, stdout: 'pipe', label: 'embedded' });
  lib.onCleanup(() => proc.kill());
  const began = performance.now();
  let rssPeak = 0;
  await lib.waitUntil(
    () => {
      if (!proc.alive()) throw new Error(`embedded Custos exited while starting: ${proc.tail().slice(-2000)}`);
      rssPeak = Math.max(rssPeak, lib.rssPeakMb(proc.pid));
      return proc.tail().includes('custos embedded ready');
    },
    { timeoutMs: 180_000, intervalMs: 20, what: 'the `custos embedded ready` line' },
  );
  const readyMs = performance.now() - began;
  return { kind, proc, readyMs, rssReady: lib.rssMb(proc.pid), rssPeak: Math.max(rssPeak, lib.rssPeakMb(proc.pid)) };
}

async function decide(url, quick) {
  const form = `grant_type=client_credentials&client_id=${lib.ADMIN.id}&client_secret=${lib.ADMIN.secret}`;
  const minted = await lib.request('POST', `${url('auth')}/oauth/token`, {
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form,
  });
  const token = minted.json().access_token;
  const auth = { Authorization: `Bearer ${token}` };
  const add = async (id, xml) => {
    const added = await lib.request('POST', `${url('pap')}/ws/policy`, { headers: { ...auth, 'Content-Type': 'application/xml' }, body: xml });
    if (added.status !== 201) throw new Error(`adding \`${id}\` answered ${added.status}: ${added.text}`);
    const deployed = await lib.request('POST', `${url('pap')}/ws/policy/${id}/deploy`, { headers: auth });
    if (deployed.status !== 200) throw new Error(`deploying \`${id}\` answered ${deployed.status}`);
    return Number(deployed.headers['policy-revision']);
  };
  const revision = await add(lib.policyId('counted'), countingPolicy(lib.policyId('counted'), 'counted'));
  const count = quick ? 200 : 1000;
  const measure = async (action, concurrency) => {
    const body = JSON.stringify({ actionId: { scope: lib.SOLUTION, action }, timestamp: Date.now(), parameters: [] });
    const headers = { ...auth, 'Content-Type': 'application/json', 'Min-Policy-Revision': String(revision) };
    const began = performance.now();
    const latencies = await lib.pool(Array.from({ length: count }), concurrency, async () => {
      const answer = await lib.request('POST', `${url('pdp')}/event`, { headers, body });
      if (answer.status !== 200) throw new Error(`a decision answered ${answer.status}: ${answer.text}`);
      return answer.ms;
    });
    const seconds = (performance.now() - began) / 1000;
    return [lib.fmt(count / seconds, 0), lib.fmt(lib.percentile(latencies, 50)), lib.fmt(lib.percentile(latencies, 99))];
  };
  await measure('warm-up', 10);
  const rows = [
    ['pure', '1', ...(await measure('plain', 1))],
    ['pure', '20', ...(await measure('plain', 20))],
    ['history-using', '1', ...(await measure('counted', 1))],
    ['history-using', '10', ...(await measure('counted', 10))],
  ];
  // The same history-using load while pap adds and deploys policies, one after another, on the same connection.
  let writing = true;
  let written = 0;
  const writer = (async () => {
    while (writing) {
      const id = lib.policyId(`busy-${written}`);
      await add(id, countingPolicy(id, `busy-${written}`));
      written++;
    }
  })();
  const busy = await measure('counted', 10);
  writing = false;
  await writer;
  rows.push([`history-using, pap writing (${written} deploys meanwhile)`, '10', ...busy]);
  return { count, rows };
}

await lib.runStandalone(import.meta.url, run);
