// Benchmark of issue 15 — batch decisions: decisions/s per request size (1, 10, 50, 100 events per request) through
// Custos' own POST /events and AuthZEN's POST /access/v1/evaluations, beside single POST /event and
// POST /access/v1/evaluation calls measured in the same run, on one pdp. Every request is a full decision path
// (token check, schema, mapping, engine, decision log); the policy modifies each event and records nothing, so the
// figures compare request handling, not the history's database writes.
// For each form and size: wrk (one thread; autocannon when wrk is missing, said so) with keep-alive connections for
// a few seconds, rounds with the order rotated; decisions/s = answered requests/s × items per request, and the pdp's
// CPU µs per decision from /proc/<pid>/stat (less noisy than rates on a shared machine).
//
//   node scripts/bench/batch.mjs [--quick]        (build first: npx turbo run build)
import { cpus, loadavg } from 'node:os';
import * as lib from './lib.mjs';

export const name = 'batch';
export const title = 'Batch — decisions/s per request size: POST /events and AuthZEN evaluations beside single calls';

const S = lib.SOLUTION;
const SIZES = [1, 10, 50, 100];
const NS =
  'xmlns="http://www.mydata-control.de/4.0/mydataLanguage" xmlns:event="http://www.mydata-control.de/4.0/event" ' +
  'xmlns:constant="http://www.mydata-control.de/4.0/constant" xmlns:parameter="http://www.mydata-control.de/4.0/parameter"';

/**
 * The README's rule on both shapes of the same request: Custos events carry `user`, AuthZEN evaluations arrive as
 * `subject` (action `az`). Mallory is never shown; everybody else's first name is masked. One modifier per decision.
 */
const policy = (id, action, parameter, path) => `<policy ${NS} id="${lib.policyId(id)}">
  <mechanism event="urn:action:${S}:${action}">
    <if><equals><event:string eventParameter="${parameter}" jsonPathQuery="${path}" default=""/><constant:string value="Mallory"/></equals>
      <then><inhibit reason="Mallory is never shown"/></then></if>
    <else><modify eventParameter="${parameter}" method="append" jsonPathQuery="${path}"><parameter:string name="suffix" value=" (masked)"/></modify></else>
  </mechanism>
</policy>`;

const customEvent = (i) => JSON.parse(lib.eventJson('ev', `Ann${i}`));
// The bench's admin token covers every solution, so the action is named by its whole URN (a bare name needs a token
// of one solution; docs/api.md, "AuthZEN").
const evaluation = (i) => ({ subject: { type: 'user', id: `u${i}`, properties: { name: { firstName: `Ann${i}` } } }, action: { name: `urn:action:${S}:az` } });
const RESOURCE = { type: 'report', id: 'r1' };

/** The request of each form and size, with the number of decisions its answer must hold. */
function variantsOf(sizes) {
  const variants = [
    { key: 'event', form: 'single POST /event', path: '/event', size: 1, body: JSON.stringify(customEvent(0)), count: (a) => (a.eventAllowed === true ? 1 : 0) },
    {
      key: 'evaluation',
      form: 'single POST /access/v1/evaluation',
      path: '/access/v1/evaluation',
      size: 1,
      body: JSON.stringify({ ...evaluation(0), resource: RESOURCE }),
      count: (a) => (a.decision === true ? 1 : 0),
    },
  ];
  for (const size of sizes) {
    const items = Array.from({ length: size }, (_, i) => i);
    variants.push({
      key: `events-${size}`,
      form: 'POST /events',
      path: '/events',
      size,
      body: JSON.stringify({ events: items.map(customEvent) }),
      count: (a) => (a.decisions ?? []).filter((d) => d.eventAllowed === true && d.modifiers.length === 1).length,
    });
    variants.push({
      key: `evaluations-${size}`,
      form: 'POST /access/v1/evaluations',
      path: '/access/v1/evaluations',
      size,
      // The resource is a top-level default every evaluation takes, as an AuthZEN PEP listing one page would send it.
      body: JSON.stringify({ resource: RESOURCE, evaluations: items.map(evaluation) }),
      count: (a) => (a.evaluations ?? []).filter((d) => d.decision === true && d.context?.modifiers?.length === 1).length,
    });
  }
  return variants;
}

export async function run(options = {}) {
  const quick = Boolean(options.quick);
  const seconds = quick ? 2 : 5;
  const rounds = quick ? 1 : 3;
  const connections = 10;
  const generator = lib.wrkPath() ? 'wrk' : 'autocannon';
  if (generator === 'autocannon') lib.log('wrk is not installed (Debian: `apt-get install -y wrk`): falling back to autocannon, which takes more of the CPU the pdp needs');
  const loadBefore = loadavg();

  const core = await lib.startCore({ label: 'batch' });
  try {
    await lib.addPolicy(core, policy('batch-events', 'ev', 'user', '$.name.firstName'));
    await lib.changePolicy(core, lib.policyId('batch-events'), 'deploy');
    await lib.addPolicy(core, policy('batch-authzen', 'az', 'subject', '$.properties.name.firstName'));
    const { revision } = await lib.changePolicy(core, lib.policyId('batch-authzen'), 'deploy');
    const pdp = await core.startPdp({ label: 'pdp-batch' });
    const headers = { Authorization: `Bearer ${core.token}`, 'Content-Type': 'application/json' };

    const variants = variantsOf(SIZES);
    // Every variant answers 200 with one allowed, modified decision per item before it is measured.
    for (const variant of variants) {
      const answer = await lib.request('POST', `${pdp.url}${variant.path}`, { headers: { ...headers, 'Min-Policy-Revision': String(revision) }, body: variant.body });
      const decided = answer.status === 200 ? variant.count(answer.json()) : 0;
      if (decided !== variant.size) throw new Error(`${variant.key}: expected ${variant.size} allowed decisions, got ${answer.status} ${answer.text.slice(0, 300)}`);
    }

    const load = async (variant, duration) => {
      const before = lib.cpuMs(pdp.pid);
      const result = await lib.runCheapLoad(
        { url: `${pdp.url}${variant.path}`, method: 'POST', headers, body: variant.body, connections, duration, title: variant.key },
        { label: `load-${variant.key}` },
      );
      const after = lib.cpuMs(pdp.pid);
      result.cpuUsPerDecision = ((after.total - before.total) * 1000) / Math.max(1, result.total * variant.size);
      return result;
    };

    lib.log(`warm-up 1 s each of ${variants.length} variants`);
    for (const variant of variants) await load(variant, 1);
    const results = await lib.rotatedRounds(
      variants,
      rounds,
      (variant) => load(variant, seconds),
      (variant, result) => `${lib.fmt(result.requestsPerSecond * variant.size)} decisions/s, p99 ${lib.fmt(result.latency.p99)} ms`,
    );

    const summary = Object.fromEntries(
      variants.map((variant) => {
        const runs = results[variant.key];
        return [
          variant.key,
          {
            rps: lib.median(runs.map((r) => r.requestsPerSecond)),
            dps: lib.median(runs.map((r) => r.requestsPerSecond * variant.size)),
            p50: lib.median(runs.map((r) => r.latency.p50)),
            p99: lib.median(runs.map((r) => r.latency.p99)),
            cpuUs: lib.median(runs.map((r) => r.cpuUsPerDecision)),
            problems: runs.reduce((sum, r) => sum + r.errors + r.timeouts + r.non2xx, 0),
          },
        ];
      }),
    );
    const single = summary.event;
    const rows = variants.map((variant) => {
      const s = summary[variant.key];
      return [
        variant.form,
        String(variant.size),
        lib.fmt(s.rps),
        lib.fmt(s.dps),
        lib.fmt(s.dps / single.dps, 2),
        lib.fmt(s.p50),
        lib.fmt(s.p99),
        lib.fmt(s.cpuUs, 1),
        String(s.problems),
      ];
    });
    const problems = Object.values(summary).reduce((sum, s) => sum + s.problems, 0);
    const largest = SIZES.at(-1);
    return {
      name,
      title,
      tables: [
        {
          caption:
            `${rounds} round${rounds === 1 ? '' : 's'} × ${seconds} s per variant, order rotated, medians; ${connections} keep-alive connections; load: ${generator}. ` +
            'decisions/s = answered requests/s × items per request; × single: against single POST /event of the same run; ' +
            'latency is per request (ms); CPU µs/decision: the pdp process (all threads) per decision.',
          header: ['form', 'items/request', 'req/s', 'decisions/s', '× single', 'p50', 'p99', 'CPU µs/decision', 'errors'],
          rows,
        },
      ],
      targets: [
        lib.target(
          `POST /events, ${largest} per request`,
          `${lib.fmt(summary[`events-${largest}`].dps)} decisions/s (${lib.fmt(summary[`events-${largest}`].dps / single.dps, 2)} × single POST /event)`,
          'info',
          undefined,
        ),
        lib.target(
          `POST /access/v1/evaluations, ${largest} per request`,
          `${lib.fmt(summary[`evaluations-${largest}`].dps)} decisions/s (${lib.fmt(summary[`evaluations-${largest}`].dps / single.dps, 2)} × single POST /event)`,
          'info',
          undefined,
        ),
        lib.target('errors under load', String(problems), '0', problems === 0),
      ],
      notes: [
        `Load average before and after: ${loadBefore.map((l) => lib.fmt(l, 2)).join(' ')} → ${loadavg().map((l) => lib.fmt(l, 2)).join(' ')} (${cpus().length} cores).`,
        'The policies record nothing: history-using batches also write one row per counted event, as single calls do.',
        'Load generator and pdp share the same cores; per-decision CPU is the figure to compare across machines.',
      ],
      figures: summary,
    };
  } finally {
    await core.stop();
  }
}

await lib.runStandalone(import.meta.url, run);
