// Decision benchmark of the policy engine, in-process, against dist/ (run `npx tsc -p tsconfig.build.json` first).
// Reports decisions/s and p50/p99 per decision for 10, 1,000 and 10,000 deployed policies of which 10 mechanisms
// match the event, beside a baseline measured in the same run (a bare Map lookup + closure call per event), and the
// time to compile 1,000 policies. Targets (issue 3): p50 ≤ 3 µs, p99 ≤ 20 µs, flat in the number of non-matching
// policies; compiling 1,000 ≤ 2 s. Beside them, the peer @cedar-policy/cedar-wasm deciding an equivalent permit/forbid
// set (preparsed) for 10 and 2,000 policies. Numbers vary between runs: compare the rows of one run.
// `--json <file>` also writes the rows and the compile time as JSON (the suite's runner turns them into targets).
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { realisticPolicyXml } from './policies.mjs';

const require = createRequire(import.meta.url);
const engine = require('../dist/index.js');

const HOT = 'urn:action:bench:hot';
const MATCHING = 10;

const policyXml = (index, action) => realisticPolicyXml(index, action);

function load(xml) {
  const outcome = engine.loadPolicy(xml);
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.diagnostics));
  return outcome.policy;
}

function deployed(total) {
  const policies = [];
  for (let index = 0; index < total; index += 1) policies.push(load(policyXml(index, index < MATCHING ? HOT : `urn:action:bench:a${index}`)));
  return engine.createPolicySet(policies);
}

const EVENTS = [
  { user: { name: 'ann', role: 'analyst' }, size: 10, tags: ['public'] },
  { user: { name: 'mallory', role: 'analyst' }, size: 10, tags: ['secret'] },
  { user: { name: 'bob', role: 'admin' }, size: '5000', tags: ['public'] },
].map((parameters) => ({ action: HOT, timestamp: Date.now(), parameters: new Map(Object.entries(parameters)) }));

const OPTIONS = { defaultDecision: 'allow', timeZone: 'Europe/Berlin' };
const BATCH = 20;

/** Per-decision times (ns) of `batches` batches of BATCH calls, after a warm-up. */
function measure(decideOne, batches, warmup = 50_000) {
  for (let index = 0; index < warmup; index += 1) decideOne(EVENTS[index % EVENTS.length]);
  const perDecision = new Float64Array(batches);
  let sink = 0;
  const started = process.hrtime.bigint();
  for (let batch = 0; batch < batches; batch += 1) {
    const before = process.hrtime.bigint();
    for (let index = 0; index < BATCH; index += 1) sink += decideOne(EVENTS[(batch + index) % EVENTS.length]) ? 1 : 0;
    perDecision[batch] = Number(process.hrtime.bigint() - before) / BATCH;
  }
  const elapsed = Number(process.hrtime.bigint() - started);
  perDecision.sort();
  const at = (quantile) => perDecision[Math.min(batches - 1, Math.floor(quantile * batches))] / 1000;
  return { perSecond: (batches * BATCH) / (elapsed / 1e9), p50: at(0.5), p99: at(0.99), sink };
}

function baseline() {
  // What any decision path must pay at least: one map lookup and one closure call per event.
  const closures = new Map([[HOT, (event) => event.parameters.get('size') !== 0]]);
  return (event) => closures.get(event.action)(event);
}

const jsonAt = process.argv.indexOf('--json');
const jsonFile = jsonAt >= 0 ? process.argv[jsonAt + 1] : undefined;
const rows = [];
const batches = process.argv.includes('--quick') ? 10_000 : 50_000;
rows.push(['baseline (map + closure)', measure(baseline(), batches)]);
for (const total of [10, 1_000, 10_000]) {
  const set = deployed(total);
  rows.push([`${total.toLocaleString('en')} policies, ${MATCHING} match`, measure((event) => engine.decide(set, event, OPTIONS).allowed, batches)]);
}

// The peer: Cedar (WebAssembly build) deciding an equivalent permit/forbid set, preparsed once, in the same run.
function cedarRows() {
  let cedar;
  try {
    cedar = require('@cedar-policy/cedar-wasm/nodejs');
  } catch {
    return { note: 'peer skipped: @cedar-policy/cedar-wasm is not installed' };
  }
  const cedarPolicies = (total) => {
    const text = [];
    for (let index = 0; index < total; index += 1) {
      const action = index < MATCHING ? 'hot' : `a${index}`;
      text.push(`@id("p${index}") permit(principal, action == Action::"${action}", resource) when { context.role == "analyst" && context.size < ${1000 + index} && context.name != "mallory" };`);
      text.push(`@id("f${index}") forbid(principal, action == Action::"${action}", resource) when { context.tag0 == "secret" };`);
    }
    return text.join('\n');
  };
  const contexts = EVENTS.map(({ parameters }) => ({
    role: parameters.get('user').role,
    name: parameters.get('user').name,
    size: Number(parameters.get('size')),
    tag0: parameters.get('tags')[0],
  }));
  const result = [];
  for (const total of [10, 2_000]) {
    const id = `bench-${total}`;
    const parsed = cedar.preparsePolicySet(id, { staticPolicies: cedarPolicies(total) });
    if (parsed.type !== 'success') throw new Error(`cedar refused the policies: ${JSON.stringify(parsed.errors)}`);
    let next = 0;
    const decideOne = () => {
      const answer = cedar.statefulIsAuthorized({
        principal: { type: 'User', id: 'u' },
        action: { type: 'Action', id: 'hot' },
        resource: { type: 'Doc', id: 'd' },
        context: contexts[next++ % contexts.length],
        preparsedPolicySetId: id,
        entities: [],
      });
      return answer.type === 'success' && answer.response.decision === 'allow';
    };
    result.push([`cedar-wasm, ${total.toLocaleString('en')} policies`, measure(decideOne, total >= 1_000 ? 100 : 5_000, total >= 1_000 ? 200 : 5_000)]);
  }
  return { rows: result };
}

const peer = cedarRows();
if (peer.rows) rows.push(...peer.rows);

const compileStarted = process.hrtime.bigint();
for (let index = 0; index < 1_000; index += 1) load(policyXml(index, `urn:action:bench:c${index}`));
const compileMs = Number(process.hrtime.bigint() - compileStarted) / 1e6;

const pad = (text, width) => String(text).padStart(width);
console.log(`policy-engine decide benchmark (node ${process.version}, batches of ${BATCH}; ${batches} batches per engine row, fewer for the cedar peer)`);
console.log(`${'case'.padEnd(30)}${pad('decisions/s', 14)}${pad('p50 µs', 10)}${pad('p99 µs', 10)}`);
for (const [name, result] of rows) {
  console.log(`${name.padEnd(30)}${pad(Math.round(result.perSecond).toLocaleString('en'), 14)}${pad(result.p50.toFixed(2), 10)}${pad(result.p99.toFixed(2), 10)}`);
}
console.log(`compile 1,000 policies: ${compileMs.toFixed(0)} ms (${(compileMs / 1000).toFixed(2)} ms each)`);
if (peer.note) console.log(peer.note);
console.log('targets: p50 ≤ 3 µs, p99 ≤ 20 µs, flat in the number of non-matching policies; compile 1,000 ≤ 2,000 ms');
if (jsonFile) {
  const figures = rows.map(([name, result]) => ({ name, perSecond: result.perSecond, p50: result.p50, p99: result.p99 }));
  writeFileSync(jsonFile, `${JSON.stringify({ rows: figures, compileMs }, null, 2)}\n`);
}
