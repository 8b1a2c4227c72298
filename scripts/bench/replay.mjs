// Replay: a pdp that missed changes on its core subscription reads them back from pap's JetStream stream before it
// asks pap for a snapshot. How long that read takes for a replica `behind` changes behind, on a stream of `stored`
// deploys of policy size: the pdp's reader (apps/pdp-service policy-set/stream-replay.ts, one ordered consumer from the
// first sequence that can hold the next revision) beside the baseline it replaced, measured in the same run on the
// same stream: a bisection over the sequence, then one direct get per change. Both must return the same changes.
import path from 'node:path';
import * as lib from './lib.mjs';

export const name = 'replay';
export const title = 'Replay — missed changes read back from the JetStream stream';

const nats = () => lib.require(lib.require.resolve('nats', { paths: [path.join(lib.ROOT, 'apps', 'pdp-service')] }));
const pdpDist = (file) => lib.require(path.join(lib.ROOT, 'apps', 'pdp-service', 'dist', file));

/** The reader before the ordered consumer: bisection for the first change after `revision`, then one get per change. */
async function bisectAndGet(nc, stream, revision, max) {
  const { parseChange } = lib.contracts();
  const jsm = await nc.jetstreamManager({ timeout: 2000 });
  const { state } = await jsm.streams.info(stream);
  const at = async (seq) => parseChange((await jsm.streams.getMessage(stream, { seq })).data);
  const revisionAt = async (seq) => {
    const change = await at(seq);
    return typeof change === 'string' ? -1 : change.revision;
  };
  let low = state.first_seq;
  let high = state.last_seq;
  if ((await revisionAt(high)) <= revision) return [];
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if ((await revisionAt(middle)) <= revision) low = middle + 1;
    else high = middle;
  }
  const changes = [];
  for (let seq = low; seq <= state.last_seq && changes.length < max; seq++) {
    const change = await at(seq);
    if (typeof change !== 'string') changes.push(change);
  }
  return changes;
}

export async function run(options = {}) {
  const quick = Boolean(options.quick);
  const stored = quick ? 500 : 2000;
  const behinds = quick ? [10, 200] : [10, 100, 1000];
  const rounds = quick ? 3 : 5;
  const { connect } = nats();
  const { StreamReplay, MAX_REPLAY } = pdpDist('policy-set/stream-replay.js');
  const { policySubjects } = lib.contracts();
  const prefix = `bench_replay_${process.pid}_${Date.now()}`;
  const subjects = policySubjects(prefix);
  const nc = await connect({ servers: lib.NATS_URL, timeout: 5_000 });
  const close = lib.onCleanup(async () => {
    await lib.deleteNatsStream(prefix).catch(() => undefined);
    await nc.close();
  });
  try {
    return await measure({ nc, prefix, subjects, stored, behinds, rounds, StreamReplay, MAX_REPLAY });
  } finally {
    await close();
  }
}

async function measure({ nc, prefix, subjects, stored, behinds, rounds, StreamReplay, MAX_REPLAY }) {
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: subjects.stream, subjects: [subjects.changes] });
  const js = nc.jetstream();
  lib.log(`${stored} deploys of policy size published to the stream`);
  const publishes = [];
  for (let revision = 1; revision <= stored; revision++) {
    const id = lib.policyId(`p${revision}`);
    const change = { revision, type: 'deploy', policy: { id, xml: lib.maskPolicy(`p${revision}`, `a${revision}`) } };
    publishes.push(js.publish(subjects.changes, JSON.stringify(change), { msgID: `${prefix}:${revision}` }));
    if (publishes.length >= 200) await Promise.all(publishes.splice(0));
  }
  await Promise.all(publishes);

  const reader = new StreamReplay(nc, prefix);
  const variants = [
    { key: 'ordered consumer', read: (after) => reader.after(after) },
    { key: 'bisection + get per change', read: (after) => bisectAndGet(nc, subjects.stream, after, MAX_REPLAY) },
  ];
  const rows = [];
  const figures = {};
  for (const behind of behinds) {
    const after = stored - behind;
    const results = await lib.rotatedRounds(
      variants,
      rounds,
      async (variant) => {
        const started = performance.now();
        const changes = await variant.read(after);
        const ms = performance.now() - started;
        const revisions = changes.map((change) => change.revision);
        const expected = Array.from({ length: Math.min(behind, MAX_REPLAY) }, (_, k) => after + 1 + k);
        if (JSON.stringify(revisions) !== JSON.stringify(expected)) throw new Error(`${variant.key} read the wrong changes ${behind} behind`);
        return ms;
      },
      (variant, ms) => `${behind} behind: ${lib.fmt(ms)} ms`,
    );
    const now = lib.median(results['ordered consumer']);
    const before = lib.median(results['bisection + get per change']);
    rows.push([behind, lib.fmt(now), lib.fmt(before), `${lib.fmt(before / now, 1)}×`]);
    figures[`replay ${behind} behind ms`] = now;
    figures[`replay ${behind} behind baseline ms`] = before;
  }
  return {
    name,
    title,
    tables: [
      {
        caption: `Median of ${rounds} rotated rounds on a stream of ${stored} deploys (NATS at ${lib.NATS_URL}); at most ${MAX_REPLAY} changes per read.`,
        header: ['changes behind', 'ordered consumer (ms)', 'bisection + get per change (ms)', 'faster'],
        rows,
      },
    ],
    targets: [],
    notes: ['Both readers return exactly the missed changes in order (checked each round).'],
    figures,
  };
}

await lib.runStandalone(import.meta.url, run);
