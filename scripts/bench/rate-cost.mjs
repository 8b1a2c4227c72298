// What a request costs a server at a fixed rate, against flat out (issue 26): at a fixed rate every request is a
// wake-up of its own, and on this VM a wake-up costs tens of µs, so a pdp that takes ~140 µs of CPU per request
// flat out took 600–800 µs per pure decision at 1,000/s over three replicas in session 8's attribution. This
// measures one pdp (decision log on, 100 deployed policies) and the bare node:http floor at a few fixed rates,
// alternating, open loop (scripts/bench/open-loop.mjs), and prints per request: CPU of the main thread and of the
// other threads, and the main thread's wake-ups (voluntary context switches) and preemptions, from /proc.
// `node scripts/bench/rate-cost.mjs '{"rates":[300,1000,3000],"rounds":2,"seconds":6}'`; `"pdps":{"a":{},"b":{"X":"1"}}`
// starts one pdp per entry with that environment added (an A/B of a setting). A measuring tool, not part of
// `npm run bench`.
import { loadavg } from 'node:os';
import path from 'node:path';
import * as lib from './lib.mjs';

const { rates = [300, 1000, 3000], rounds = 2, seconds = 6, policies = 100, pdps = { pdp: {} } } = JSON.parse(process.argv[2] ?? '{}');

function delta(pid, before, after, requests) {
  let mainCpu = 0, otherCpu = 0, mainWake = 0, mainPre = 0, otherWake = 0;
  for (const [tid, a] of after) {
    const b = before.get(tid) ?? { cpuMs: 0, wakeups: 0, preempted: 0 };
    if (tid === String(pid)) {
      mainCpu += a.cpuMs - b.cpuMs;
      mainWake += a.wakeups - b.wakeups;
      mainPre += a.preempted - b.preempted;
    } else {
      otherCpu += a.cpuMs - b.cpuMs;
      otherWake += a.wakeups - b.wakeups;
    }
  }
  const per = (x, scale = 1) => (x * scale) / requests;
  return { mainUs: per(mainCpu, 1000), otherUs: per(otherCpu, 1000), mainWake: per(mainWake), mainPre: per(mainPre), otherWake: per(otherWake) };
}

const core = await lib.startCore({ label: 'ratecost' });
try {
  await lib.loadPolicies(core, { count: policies, concurrency: 8 });
  const started = [];
  for (const [key, env] of Object.entries(pdps)) started.push({ key, pdp: await core.startPdp({ label: `pdp-${key}` }, env) });
  const floorPort = await lib.testKit().freePort();
  const floor = lib.spawnNode(path.join(lib.BENCH_DIR, 'floor-server.mjs'), { args: [String(floorPort)], label: 'floor' });
  lib.onCleanup(() => floor.stop());
  const floorUrl = `http://127.0.0.1:${floorPort}`;
  await lib.waitUntil(async () => (await lib.request('GET', floorUrl, { keepAlive: false })).status === 200, { what: 'the floor server' });
  const headers = { Authorization: `Bearer ${core.token}`, 'Content-Type': 'application/json' };
  const body = lib.eventJson('a0');
  const variants = [
    { key: 'floor', url: `${floorUrl}/event`, pid: floor.pid },
    ...started.map(({ key, pdp }) => ({ key, url: `${pdp.url}/event`, pid: pdp.pid })),
  ];
  for (const v of variants) await lib.runOpenLoop({ urls: [v.url], headers, bodies: [body], rate: 1000, seconds: 2, title: v.key });
  console.log(['rate', 'server', 'main µs/req', 'other µs/req', 'main wake/req', 'main preempt/req', 'other wake/req', 'p50 ms', 'p99 ms', 'load'].join('\t'));
  for (const rate of rates) {
    for (let round = 0; round < rounds; round++) {
      for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
        const before = lib.threadCounters(v.pid);
        const result = await lib.runOpenLoop({ urls: [v.url], headers, bodies: [body], rate, seconds, title: v.key });
        const after = lib.threadCounters(v.pid);
        const d = delta(v.pid, before, after, result.total ?? rate * seconds);
        console.log(
          [rate, v.key, d.mainUs.toFixed(1), d.otherUs.toFixed(1), d.mainWake.toFixed(2), d.mainPre.toFixed(2), d.otherWake.toFixed(2),
            result.latency.p50.toFixed(3), result.latency.p99.toFixed(3), loadavg()[0].toFixed(2)].join('\t'),
        );
      }
    }
  }
} finally {
  await lib.cleanupAll();
}
