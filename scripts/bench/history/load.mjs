// The history benchmark's load against the pdp replicas: closed loop (autocannon, wrk) and open loop, and a PIP.
import http from 'node:http';
import * as lib from '../lib.mjs';

/** A PIP answering every role question with `admin`, on 127.0.0.1, which the pdp's egress policy must allow explicitly. */
export async function startPip() {
  process.env.PDP_CALL_ALLOW ??= '127.0.0.1';
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ value: 'admin', type: 'java.lang.String', isComplex: false }));
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  lib.onCleanup(() => new Promise((resolve) => server.close(resolve)));
  return `http://127.0.0.1:${server.address().port}`;
}

/** autocannon against every replica at once, `connections` split between them; the p99 reported is the worst replica's. */
export async function acrossReplicas(pdps, headers, requestBodies, { connections, duration, title, overallRate }) {
  const share = Math.floor(connections / pdps.length);
  const runs = await Promise.all(
    pdps.map((pdp, i) =>
      lib.runLoad(
        {
          url: `${pdp.url}/event`,
          method: 'POST',
          headers,
          requests: requestBodies.map((body) => ({ method: 'POST', body })),
          connections: i === 0 ? connections - share * (pdps.length - 1) : share,
          duration,
          title: `${title}-${i}`,
          ...(overallRate ? { overallRate: Math.max(1, Math.round(overallRate / pdps.length)) } : {}),
        },
        { label: `load-${title}-${i}` },
      ),
    ),
  );
  const total = runs.reduce((sum, run) => sum + run.total, 0);
  const bad = runs.reduce((sum, run) => sum + run.non2xx + run.errors + run.timeouts, 0);
  return {
    total,
    bad,
    rps: runs.reduce((sum, run) => sum + run.requestsPerSecond, 0),
    p50: Math.max(...runs.map((run) => run.latency.p50)),
    p99: Math.max(...runs.map((run) => run.latency.p99)),
    perReplicaP99: runs.map((run) => run.latency.p99),
  };
}

/**
 * Flat out with the cheapest generator (wrk when installed, one process and thread per replica, else autocannon):
 * on 2 cores the generator's CPU is taken from the pdps and PostgreSQL, and three autocannon processes cost more
 * than the pdps' HTTP work. One body for every request (the whole-action count does not look at the user).
 */
export async function flatOutCheap(pdps, headers, body, { connections, duration, title }) {
  const share = Math.floor(connections / pdps.length);
  const runs = await Promise.all(
    pdps.map((pdp, i) =>
      lib.runCheapLoad(
        { url: `${pdp.url}/event`, method: 'POST', headers, body, connections: i === 0 ? connections - share * (pdps.length - 1) : share, duration, title: `${title}-${i}` },
        { label: `load-${title}-${i}` },
      ),
    ),
  );
  return {
    generator: runs[0].generator,
    total: runs.reduce((sum, run) => sum + run.total, 0),
    bad: runs.reduce((sum, run) => sum + run.non2xx + run.errors + run.timeouts, 0),
    rps: runs.reduce((sum, run) => sum + run.requestsPerSecond, 0),
    p50: Math.max(...runs.map((run) => run.latency.p50)),
    p99: Math.max(...runs.map((run) => run.latency.p99)),
  };
}

/**
 * Open loop (scripts/bench/open-loop.mjs, its own process): `rate` decisions per second round-robin over the
 * replicas for `seconds`, each timed from the moment it was due. Every answer must be a 200 allowing the event.
 */
export async function openLoop(pdps, headers, requestBodies, { rate, seconds, title }) {
  const options = { urls: pdps.map((pdp) => `${pdp.url}/event`), headers, bodies: requestBodies, rate, seconds, title, expect: 'allowed' };
  // BENCH_OPEN_LOOP_SCRIPT: another generator (e.g. an earlier open-loop.mjs) for comparing generators.
  const result = await lib.runOpenLoop(options, process.env.BENCH_OPEN_LOOP_SCRIPT);
  return { ...result, bad: result.non2xx + result.errors + result.unexpected };
}
