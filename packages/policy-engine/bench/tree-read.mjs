// Tree reading benchmark of the policy engine, in-process, against dist/ (run `npx tsc -p tsconfig.build.json` first).
// The pdp compiles every deployed policy from its tree at start, so this is the engine's share of a cold start:
// `loadCompiledTree` (read + check + compile) and the reader alone (`readValidPolicy`) over 10,000 parsed trees of
// a mix of policies (event values with JSONPaths, a regex, variables, history with time expressions, pip, modify).
//
//   node bench/tree-read.mjs [--count 10000] [--rounds 9] [--before <dir>]
//
// `--before <dir>` names another build of the engine (a directory holding its `dist/`, e.g. the commit before a
// change, built into a scratch copy): both read the same trees in alternating rounds of one process, the trees
// written by each must be the same JSON (the wire format did not move), and the medians are printed side by side.
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { namespaces, realisticPolicyXml } from './policies.mjs';

const require = createRequire(import.meta.url);
const argument = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : fallback;
};
const COUNT = Number(argument('--count', '10000'));
const ROUNDS = Number(argument('--rounds', '9'));
const before = argument('--before', undefined);

function engineAt(dir) {
  const dist = resolve(dir, 'dist');
  return { name: dir, engine: require(`${dist}/index.js`), reader: require(`${dist}/tree/read-tree.js`).readValidPolicy };
}

const NS = namespaces(['variable', 'variableDeclaration', 'pip']);

/** Three shapes of policy, varied by index so that literals differ as in a real deployment. */
function policyXml(index) {
  const id = `urn:policy:bench:p${String(index).padStart(5, '0')}`;
  const action = `urn:action:bench:a${index}`;
  switch (index % 3) {
    case 0:
      return realisticPolicyXml(index, action, NS);
    case 1:
      return `<policy id="${id}" ${NS}>
  <variableDeclaration:number name="limit"><constant:number value="${index % 50}"/></variableDeclaration:number>
  <variableDeclaration:boolean name="over"><greater><count><eventOccurrence event="${action}"><parameter:string name="user" value="u${index % 7}"/></eventOccurrence><when fixedTime="today"/></count><variable:number reference="limit"/></greater></variableDeclaration:boolean>
  <mechanism event="${action}">
    <if>
      <and>
        <not><variable:boolean reference="over"/></not>
        <regex regex="^[a-z]+${index % 10}$"><event:string eventParameter="s" jsonPathQuery="$.name" default=""/></regex>
        <continuousOccurrence interval="1h" minOccurrences="1"><eventOccurrence event="${action}"/><when><start time="*.*.* -3:*"/></when></continuousOccurrence>
      </and>
      <then><allow/></then>
    </if>
    <else><inhibit reason="no"/><delay amount="2" unit="SECONDS"/></else>
  </mechanism>
</policy>`;
    default:
      return `<policy id="${id}" ${NS}>
  <mechanism event="${action}">
    <if>
      <or>
        <contains><pip:list method="urn:info:bench:groups" default="[]" ttl="5m"><parameter:string name="user"><event:string eventParameter="user" default=""/></parameter:string></pip:list><constant:string value="g${index % 13}"/></contains>
        <eventHasParameter><constant:string value="override"/></eventHasParameter>
      </or>
      <then><allow/><execute action="urn:action:bench:log"><parameter:string name="id" value="${index}"/></execute></then>
    </if>
    <else><inhibit/></else>
  </mechanism>
</policy>`;
  }
}

/** The trees an engine writes for the mix, as text (what pap stores and ships). */
function treesOf(engine) {
  const texts = [];
  for (let index = 0; index < COUNT; index += 1) {
    const outcome = engine.loadPolicyTree(policyXml(index));
    if (!outcome.ok) throw new Error(`refused: ${JSON.stringify(outcome.diagnostics)}`);
    texts.push(JSON.stringify(outcome.tree));
  }
  return texts;
}

const engines = [engineAt(resolve(import.meta.dirname, '..')), ...(before === undefined ? [] : [engineAt(resolve(before))])];
const texts = treesOf(engines[0].engine);
for (const other of engines.slice(1)) {
  const theirs = treesOf(other.engine);
  const differing = theirs.findIndex((text, index) => text !== texts[index]);
  if (differing >= 0) throw new Error(`the trees differ at policy ${differing}:\n${texts[differing]}\n${theirs[differing]}`);
}
const trees = texts.map((text) => JSON.parse(text));

/** CPU time of the process (ms), not wall-clock: on a shared machine a descheduled round would count the wait. */
function timeMs(work) {
  const started = process.cpuUsage();
  work();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

const runs = engines.map(() => ({ load: [], read: [] }));
for (let round = 0; round < ROUNDS; round += 1) {
  // Alternating which engine goes first, so neither always runs on the garbage the other left.
  const order = round % 2 === 0 ? engines.map((_, which) => which) : engines.map((_, which) => engines.length - 1 - which);
  order.forEach((which) => {
    const { engine, reader } = engines[which];
    runs[which].load.push(
      timeMs(() => {
        for (const tree of trees) if (!engine.loadCompiledTree(tree).ok) throw new Error('a tree was refused');
      }),
    );
    runs[which].read.push(
      timeMs(() => {
        for (const tree of trees) reader(tree.policy);
      }),
    );
  });
}

// The first round warms the JIT and the regex/JSONPath caches; the median of the rest is reported.
const median = (values) => {
  const sorted = values.slice(1).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
console.log(`policy-engine tree read benchmark (node ${process.version}): ${COUNT.toLocaleString('en')} parsed trees, ${ROUNDS} rounds, median of rounds 2–${ROUNDS}, CPU time`);
console.log(`${'engine'.padEnd(48)}${'loadCompiledTree ms'.padStart(21)}${'µs each'.padStart(9)}${'read only ms'.padStart(14)}${'µs each'.padStart(9)}`);
engines.forEach(({ name }, which) => {
  const load = median(runs[which].load);
  const read = median(runs[which].read);
  const label = which === 0 ? 'this build' : `before: ${name}`;
  console.log(
    `${label.padEnd(48)}${load.toFixed(0).padStart(21)}${((load * 1000) / COUNT).toFixed(1).padStart(9)}${read.toFixed(0).padStart(14)}${((read * 1000) / COUNT).toFixed(1).padStart(9)}`,
  );
});
if (engines.length === 2) {
  const ratio = (key) => (median(runs[0][key]) / median(runs[1][key])).toFixed(2);
  console.log(`this build / before: loadCompiledTree ${ratio('load')}, read only ${ratio('read')}`);
}
