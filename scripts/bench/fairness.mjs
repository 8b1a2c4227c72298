// Benchmark of issue 20 — fairness between tenants on one pdp, and the worst request of each decision route.
//
// Fairness: tenant A sends single POST /event at a fixed offered rate (open loop: each request is timed from the
// moment it was due, so a stalled pdp shows as latency, not as fewer requests), first alone, then while tenant B
// floods the same pdp with 100-event batches on many keep-alive connections (wrk). Both tenants have their own
// client and solution; the pdp runs with the default admission (PDP_SOLUTION_*). The figure is A's p99 under B's
// flood beside A's p99 alone, measured in the same run.
//
// Worst requests: the heaviest bodies we could construct for each route within its limits (and a few past them),
// each timed as its caller sees it, with the latency of a small POST /event of tenant A sent right behind it (what
// the other tenants see while it is worked on).
//
//   node scripts/bench/fairness.mjs [--quick]        (build first: npx turbo run build)
import http from 'node:http';
import { cpus, loadavg } from 'node:os';
import * as lib from './lib.mjs';

export const name = 'fairness';
export const title = 'Fairness — tenant A’s p99 alone and while tenant B floods with batches; the worst request per route';

const NS =
  'xmlns="http://www.mydata-control.de/4.0/mydataLanguage" xmlns:event="http://www.mydata-control.de/4.0/event" ' +
  'xmlns:constant="http://www.mydata-control.de/4.0/constant" xmlns:parameter="http://www.mydata-control.de/4.0/parameter"';
const A = 'fair-a';
const B = 'fair-b';

/** The README's rule for one tenant: Mallory is never shown, everybody else's first name is masked. */
const policy = (solution) => `<policy ${NS} id="urn:policy:${solution}:mask">
  <mechanism event="urn:action:${solution}:show">
    <if><equals><event:string eventParameter="user" jsonPathQuery="$.name.firstName" default=""/><constant:string value="Mallory"/></equals>
      <then><inhibit reason="Mallory is never shown"/></then></if>
    <else><modify eventParameter="user" method="append" jsonPathQuery="$.name.firstName"><parameter:string name="suffix" value=" (masked)"/></modify></else>
  </mechanism>
</policy>`;

const event = (solution, i = 0, extra = {}) => ({
  actionId: { scope: solution, action: 'show' },
  timestamp: Date.now(),
  parameters: [
    { name: 'user', value: { value: JSON.stringify({ id: `u${i}`, name: { firstName: `Ann${i}` } }), type: 'com.acme.User', isComplex: true } },
    ...Object.entries(extra).map(([name, value]) => ({ name, value: { value, type: 'java.lang.Object', isComplex: typeof value === 'object' } })),
  ],
});

/** A client of one solution with event:decide, made through auth's admin API, and its token. */
async function tenantToken(core, solution) {
  const created = await lib.request('POST', `${core.auth.url}/clients`, {
    headers: { Authorization: `Bearer ${core.token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ solutions: [solution], scopes: ['event:decide'], description: 'fairness bench' }),
  });
  if (created.status !== 201) throw new Error(`client for ${solution}: ${created.status} ${created.text.slice(0, 300)}`);
  const { client_id: id, client_secret: secret } = created.json();
  return lib.testKit().clientToken(core.auth.url, id, secret);
}

/**
 * Open loop: `rate` requests a second for `seconds`, each timed from its due moment. Keep-alive sockets as needed, so
 * a slow answer never holds back the next request (that would hide the stall the figure is about).
 */
async function openLoop({ url, headers, body, rate, seconds }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const payload = Buffer.from(body);
  const latencies = [];
  /** How late the generator itself sent each request (it shares the cores too): its own share of the latency. */
  const lateness = [];
  const statuses = new Map();
  const total = Math.round(rate * seconds);
  const start = performance.now() + 50;
  const inFlight = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await lib.sleep(wait);
    lateness.push(performance.now() - due);
    inFlight.push(
      new Promise((resolve) => {
        const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'Content-Length': payload.length } }, (res) => {
          res.resume();
          res.on('end', () => {
            latencies.push(performance.now() - due);
            statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
            resolve();
          });
        });
        req.on('error', () => {
          statuses.set('error', (statuses.get('error') ?? 0) + 1);
          resolve();
        });
        req.end(payload);
      }),
    );
  }
  await Promise.all(inFlight);
  const connections = agent.totalSocketCount ?? 0;
  agent.destroy();
  return {
    sent: total,
    ok: statuses.get(200) ?? 0,
    statuses: Object.fromEntries(statuses),
    p50: lib.percentile(latencies, 50),
    p90: lib.percentile(latencies, 90),
    p99: lib.percentile(latencies, 99),
    max: Math.max(...latencies),
    sendLateP99: lib.percentile(lateness, 99),
    sendLateMax: Math.max(...lateness),
    over100ms: latencies.filter((ms) => ms > 100).length,
    connections,
  };
}

/** Table rows of one pdp's two phases. */
function phaseRows(label, { alone, underFlood, flood }) {
  const a = (r) => [String(r.sent), String(r.ok), lib.fmt(r.sendLateMax), lib.fmt(r.p50), lib.fmt(r.p90), lib.fmt(r.p99), lib.fmt(r.max)];
  const decisions = (flood.requestsPerSecond - flood.non2xx / flood.seconds) * 100;
  return [
    [label, 'alone', ...a(alone), '–', '–', '–', '–'],
    [label, 'while B floods', ...a(underFlood), lib.fmt(flood.requestsPerSecond), lib.fmt(decisions), String(flood.non2xx), `${lib.fmt(flood.cpuShare)} %`],
  ];
}

/** The heaviest bodies per route we could construct, and what each is answered. */
function worstRequests(aToken, bToken) {
  const zeros = (count) => `[${'0,'.repeat(count - 1)}0]`;
  const wideObject = (keys) => Object.fromEntries(Array.from({ length: keys }, (_, i) => [`key-${String(i).padStart(7, '0')}`, i]));
  const wrap = (events) => JSON.stringify({ events });
  const evaluations = (context, count, own) =>
    JSON.stringify({
      subject: { type: 'user', id: 'u1' },
      action: { name: 'show' },
      ...(context === undefined ? {} : { context }),
      evaluations: Array.from({ length: count }, (_, i) => ({ resource: { type: 'doc', id: `d${i}` }, ...(own ? { context: own(i) } : {}) })),
    });
  // One event of about 1 MiB: a complex value sent as JSON text of ~520,000 zeros (decoded, then walked).
  const textEvent = event(B, 0, { values: zeros(520_000) });
  textEvent.parameters[1].value.isComplex = true;
  const perItem = 9_800; // 100 items of ~20 KB: ~980,000 values, just inside the budget
  return [
    { route: 'POST /event', what: '1 MiB: a complex value of ~520,000 numbers as JSON text', path: '/event', body: JSON.stringify(textEvent), token: bToken },
    { route: 'POST /event', what: '1 MiB: an object of 50,000 keys', path: '/event', body: JSON.stringify(event(B, 0, { wide: wideObject(50_000) })), token: bToken },
    {
      route: 'POST /events',
      what: '100 events of ~9,800 numbers each (~2 MiB, ~980,000 values)',
      path: '/events',
      body: wrap(Array.from({ length: 100 }, (_, i) => event(B, i, { values: Array.from({ length: perItem }, () => 0) }))),
      token: bToken,
    },
    {
      route: 'POST /events',
      what: '4 events of ~1 MiB numbers (~4 MiB, ~2,000,000 values: past the budget)',
      path: '/events',
      body: wrap(Array.from({ length: 4 }, (_, i) => event(B, i, { values: Array.from({ length: 500_000 }, () => 0) }))),
      token: bToken,
    },
    { route: 'POST /events', what: '100 small events (~25 KB)', path: '/events', body: wrap(Array.from({ length: 100 }, (_, i) => event(B, i))), token: bToken },
    {
      route: 'POST /access/v1/evaluations',
      what: 'the issue’s attack: 100 evaluations sharing a 200,000-key context (~3.9 MiB)',
      path: '/access/v1/evaluations',
      body: evaluations(wideObject(200_000), 100),
      token: bToken,
    },
    {
      route: 'POST /access/v1/evaluations',
      what: '100 evaluations sharing a 48,000-key context (~0.95 MiB, decided)',
      path: '/access/v1/evaluations',
      body: evaluations(wideObject(48_000), 100),
      token: bToken,
    },
    {
      route: 'POST /access/v1/evaluations',
      what: '100 evaluations with their own 1,800-key context each (~3.2 MiB, decided)',
      path: '/access/v1/evaluations',
      body: evaluations(undefined, 100, () => wideObject(1_800)),
      token: bToken,
    },
  ];
}

export async function run(options = {}) {
  const quick = Boolean(options.quick);
  const seconds = quick ? 4 : 10;
  const rate = 200;
  const connections = 32;
  const loadBefore = loadavg();
  const core = await lib.startCore({ label: 'fairness' });
  try {
    for (const solution of [A, B]) await lib.addPolicy(core, policy(solution));
    await lib.changePolicy(core, `urn:policy:${A}:mask`, 'deploy');
    const { revision } = await lib.changePolicy(core, `urn:policy:${B}:mask`, 'deploy');
    // The default admission: what an operator gets without setting PDP_SOLUTION_*.
    // BENCH_FAIRNESS_RATE=<decisions/s>: another PDP_SOLUTION_RATE than the default, to see a quota below the replica's capacity.
    const quota = process.env.BENCH_FAIRNESS_RATE ? { PDP_SOLUTION_RATE: process.env.BENCH_FAIRNESS_RATE } : {};
    const pdp = await core.startPdp({ label: 'pdp-fairness', defaultAdmission: true }, quota);
    const [aToken, bToken] = [await tenantToken(core, A), await tenantToken(core, B)];
    const aHeaders = { Authorization: `Bearer ${aToken}`, 'Content-Type': 'application/json' };
    const bHeaders = { Authorization: `Bearer ${bToken}`, 'Content-Type': 'application/json' };
    const aBody = JSON.stringify(event(A));
    const bBatch = JSON.stringify({ events: Array.from({ length: 100 }, (_, i) => event(B, i, { note: 'x'.repeat(200) })) });
    for (const [headers, path, body] of [[aHeaders, '/event', aBody], [bHeaders, '/events', bBatch]]) {
      const answer = await lib.request('POST', `${pdp.url}${path}`, { headers: { ...headers, 'Min-Policy-Revision': String(revision) }, body });
      if (answer.status !== 200) throw new Error(`${path} before the load: ${answer.status} ${answer.text.slice(0, 300)}`);
    }

    /** Tenant A alone, then while tenant B floods, on one pdp. */
    const phases = async (target, label) => {
      const aLoad = () => openLoop({ url: `${target.url}/event`, headers: aHeaders, body: aBody, rate, seconds });
      lib.log(`${label} — warm-up: tenant A ${seconds / 2} s`);
      await openLoop({ url: `${target.url}/event`, headers: aHeaders, body: aBody, rate, seconds: seconds / 2 });
      lib.log(`${label} — tenant A alone: ${rate} req/s for ${seconds} s`);
      const alone = await aLoad();
      lib.log(`  p50 ${lib.fmt(alone.p50)} ms, p99 ${lib.fmt(alone.p99)} ms, max ${lib.fmt(alone.max)} ms; sent late by at most ${lib.fmt(alone.sendLateMax)} ms`);
      lib.log(`${label} — tenant A while tenant B floods: ${connections} connections of 100-event batches (${lib.fmt(bBatch.length / 1024)} KB each)`);
      const flooding = lib.runWrk({ url: `${target.url}/events`, method: 'POST', headers: bHeaders, body: bBatch, connections, duration: seconds + 2, title: 'flood' }, { label: 'flood' });
      await lib.sleep(1000);
      const cpuBefore = lib.cpuMs(target.pid);
      const underFlood = await aLoad();
      const cpuAfter = lib.cpuMs(target.pid);
      const flood = await flooding;
      flood.cpuShare = (cpuAfter.total - cpuBefore.total) / (seconds * 10);
      lib.log(
        `  p50 ${lib.fmt(underFlood.p50)} ms, p99 ${lib.fmt(underFlood.p99)} ms, max ${lib.fmt(underFlood.max)} ms, ${underFlood.over100ms} over 100 ms; ` +
          `sent late by at most ${lib.fmt(underFlood.sendLateMax)} ms; B: ${flood.errors} socket errors, ${lib.fmt(flood.requestsPerSecond)} batches/s, ${flood.non2xx} refused`,
      );
      return { alone, underFlood, flood };
    };
    const current = await phases(pdp, 'this build');
    // BENCH_PDP_BASELINE_MAIN=<main.js of another build>: the same two phases on that build, for a before/after.
    const baselineMain = process.env.BENCH_PDP_BASELINE_MAIN;
    let before;
    if (baselineMain) {
      const baseline = await core.startPdp({ label: 'pdp-fairness-baseline', main: baselineMain, defaultAdmission: true });
      before = await phases(baseline, 'baseline build');
      await core.stopPdp(baseline);
    }
    const { alone, underFlood, flood } = current;

    lib.log('worst requests: each 3 times, with a small POST /event of tenant A sent right behind it');
    const worst = [];
    for (const candidate of worstRequests(aToken, bToken)) {
      const times = [];
      const probes = [];
      let status;
      for (let round = 0; round < 3; round++) {
        const heavy = lib.request('POST', `${pdp.url}${candidate.path}`, { headers: { Authorization: `Bearer ${candidate.token}`, 'Content-Type': 'application/json' }, body: candidate.body, timeoutMs: 120_000 });
        await lib.sleep(5);
        const probe = await lib.request('POST', `${pdp.url}/event`, { headers: aHeaders, body: aBody });
        const answer = await heavy;
        times.push(answer.ms);
        probes.push(probe.ms);
        status = answer.status === 200 ? '200' : `${answer.status} ${answer.json().errors?.[0]?.path ?? ''}`.trim();
      }
      worst.push({ ...candidate, ms: lib.median(times), probeMs: Math.max(...probes), status, bytes: Buffer.byteLength(candidate.body) });
      lib.log(`  ${candidate.route}, ${candidate.what}: ${status}, ${lib.fmt(lib.median(times))} ms; A's probe at most ${lib.fmt(Math.max(...probes))} ms`);
    }

    const factor = underFlood.p99 / alone.p99;
    return {
      name,
      title,
      tables: [
        {
          caption:
            `tenant A: ${rate} single POST /event a second, open loop (timed from each request's due moment), ${seconds} s; tenant B: wrk, ` +
            `${connections} keep-alive connections of 100-event batches (${lib.fmt(bBatch.length / 1024)} KB). ` +
            `${quota.PDP_SOLUTION_RATE ? `PDP_SOLUTION_RATE=${quota.PDP_SOLUTION_RATE}, otherwise the default admission` : 'Default admission'}. Latency in ms.`,
          header: ['pdp', 'tenant A', 'sent', '200', 'sent late, max', 'p50', 'p90', 'p99', 'max', 'B batches/s', 'B decisions/s', 'B refused (429)', 'pdp CPU'],
          rows: [
            ...phaseRows('this build', current),
            ...(before ? phaseRows(`baseline (${baselineMain})`, before) : []),
          ],
        },
        {
          caption: 'The heaviest requests we could construct per route (median of 3, as the caller sees it) and the slowest answer of tenant A’s POST /event sent 5 ms behind each.',
          header: ['route', 'request', 'bytes', 'answer', 'ms', 'A behind it, ms'],
          rows: worst.map((w) => [w.route, w.what, lib.fmt(w.bytes), w.status, lib.fmt(w.ms), lib.fmt(w.probeMs)]),
        },
      ],
      targets: [
        ...(before
          ? [lib.target('baseline build: tenant A p99 while B floods, over A alone', `${lib.fmt(before.underFlood.p99 / before.alone.p99, 2)} × (${lib.fmt(before.underFlood.p99)} ms over ${lib.fmt(before.alone.p99)} ms)`, 'info', undefined)]
          : []),
        lib.target('tenant A p99 while B floods, over A alone', `${lib.fmt(factor, 2)} × (${lib.fmt(underFlood.p99)} ms over ${lib.fmt(alone.p99)} ms)`, 'small factor', undefined),
        lib.target('tenant A answered while B floods', `${underFlood.ok} of ${underFlood.sent}`, 'all', underFlood.ok === underFlood.sent),
      ],
      notes: [
        `Load average before and after: ${loadBefore.map((l) => lib.fmt(l, 2)).join(' ')} → ${loadavg().map((l) => lib.fmt(l, 2)).join(' ')} (${cpus().length} cores, shared with other work).`,
        'B’s flood and A’s generator share the cores with the pdp; B is refused (429) once past its rate (PDP_SOLUTION_RATE) or concurrency.',
      ],
      figures: { alone, underFlood, flood, before, worst: worst.map(({ body: _body, token: _token, ...rest }) => rest) },
    };
  } finally {
    await core.stop();
  }
}

await lib.runStandalone(import.meta.url, run);
