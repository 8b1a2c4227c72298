// Benchmark 3 of issue 6 — propagation: 3 pdp replicas follow pap over NATS. For each of 100 deploys
// (then 100 revokes) of an inhibit-everything policy: the time from pap's answer (with its
// Policy-Revision r) until every replica has decided by the new set. Right after the answer, one
// POST /event with `Min-Policy-Revision: r` goes to each replica at once; a replica answers as soon as
// r is active, so answer − pap's answer is the propagation time plus one decision round trip.
// Every answer is checked: status 200, Policy-Revision ≥ r, and the decision the new set implies.
// Floor: the same decision round trip with nothing to wait for. Target: p99 ≤ 100 ms (all 3 replicas).
import * as lib from './lib.mjs';

export const name = 'propagation';
export const title = 'Propagation — deploy/revoke → every one of 3 replicas decides by it';

export async function run(options = {}) {
  const quick = Boolean(options.quick);
  const changes = quick ? 20 : 100;
  const basePolicies = quick ? 100 : 1000;
  const replicas = 3;

  const core = await lib.startCore({ label: 'propagation' });
  try {
    lib.log(`${basePolicies} deployed policies as background, ${changes} toggled policies added (not deployed)`);
    await lib.loadPolicies(core, { count: basePolicies, concurrency: 8 });
    const toggled = Array.from({ length: changes }, (_, k) => ({ name: `t${k}`, action: `t${k}` }));
    await lib.pool(toggled, 8, (t) => lib.addPolicy(core, lib.inhibitPolicy(t.name, t.action)));

    const pdps = [];
    for (let i = 0; i < replicas; i++) pdps.push(await core.startPdp({ label: `pdp-prop-${i}` }));

    // Floor: one decision round trip per replica with no revision to wait for (same request otherwise).
    const floorMs = [];
    for (let i = 0; i < changes; i++) {
      const started = performance.now();
      await Promise.all(pdps.map((pdp) => lib.decide(core, pdp, 'floor', { minRevision: 0 })));
      floorMs.push(performance.now() - started);
    }

    const measure = async (kind) => {
      const papMs = [];
      const allMs = [];
      const perReplica = pdps.map(() => []);
      const failures = [];
      for (const t of toggled) {
        const sent = performance.now();
        const { revision } = await lib.changePolicy(core, lib.policyId(t.name), kind);
        const answered = performance.now();
        papMs.push(answered - sent);
        const expected = kind === 'revoke';
        const done = await Promise.all(
          pdps.map(async (pdp, i) => {
            const decision = await lib.decide(core, pdp, t.action, { minRevision: revision });
            const ms = performance.now() - answered;
            perReplica[i].push(ms);
            if (decision.status !== 200 || decision.revision < revision || decision.allowed !== expected) {
              failures.push(`${kind} ${t.name} r${revision} replica ${i}: ${decision.status} rev ${decision.revision} allowed ${decision.allowed}`);
            }
            return ms;
          }),
        );
        allMs.push(Math.max(...done));
      }
      return { kind, papMs, allMs, perReplica, failures };
    };

    lib.log(`${changes} deploys`);
    const deploys = await measure('deploy');
    lib.log(`${changes} revokes`);
    const revokes = await measure('revoke');

    const p = (values, q) => lib.fmt(lib.percentile(values, q));
    const rows = [];
    for (const m of [deploys, revokes]) {
      rows.push([`${m.kind}: pap answer (request → answer)`, p(m.papMs, 50), p(m.papMs, 99), p(m.papMs, 100)]);
      rows.push([`${m.kind}: pap answer → all ${replicas} replicas decided`, p(m.allMs, 50), p(m.allMs, 99), p(m.allMs, 100)]);
      m.perReplica.forEach((values, i) => rows.push([`  replica ${i}`, p(values, 50), p(values, 99), p(values, 100)]));
    }
    rows.push([`floor: one decision round trip to all ${replicas} (nothing to wait for)`, p(floorMs, 50), p(floorMs, 99), p(floorMs, 100)]);

    const failures = [...deploys.failures, ...revokes.failures];
    const deployP99 = lib.percentile(deploys.allMs, 99);
    const revokeP99 = lib.percentile(revokes.allMs, 99);
    return {
      name,
      title,
      tables: [
        {
          caption: `${changes} deploys then ${changes} revokes, one at a time, ${basePolicies} other policies deployed; ms`,
          header: ['step', 'p50', 'p99', 'max'],
          rows,
        },
      ],
      targets: [
        lib.target('deploy → all replicas, p99', `${lib.fmt(deployP99)} ms`, '≤ 100 ms', deployP99 <= 100),
        lib.target('revoke → all replicas, p99', `${lib.fmt(revokeP99)} ms`, '≤ 100 ms', revokeP99 <= 100),
        lib.target('wrong or late decisions', String(failures.length), '0', failures.length === 0),
      ],
      notes: [
        'Measured from the moment pap\'s answer arrives; the figure includes one decision round trip (see the floor row).',
        ...failures.slice(0, 5),
      ],
      figures: {
        deploy: { p50: lib.median(deploys.allMs), p99: deployP99, papP50: lib.median(deploys.papMs) },
        revoke: { p50: lib.median(revokes.allMs), p99: revokeP99, papP50: lib.median(revokes.papMs) },
        floor: { p50: lib.median(floorMs), p99: lib.percentile(floorMs, 99) },
      },
    };
  } finally {
    await core.stop();
  }
}

await lib.runStandalone(import.meta.url, run);
