import { readFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { closestName, emptyPolicySet, type PolicySet } from '@custos/policy-engine';
import { SingleBar, Presets } from 'cli-progress';
import { EXIT_CODES, type ExitCode } from '../../output/exit-codes';
import { formatProblem, type LocatedProblem } from '../../output/located';
import type { Output } from '../../output/streams';
import { findFiles, unreadable } from '../files';
import { BranchCoverage, formatCoverage } from './coverage';
import { junitXml, type JunitSuite } from './junit';
import { PolicyCache, type LoadedPolicy, type LoadedTimer } from './load-policies';
import { folderSettingsFor, type FolderSettings } from './folder-settings';
import { readTestFile } from './read-test-file';
import { isPassed, junitSuite, suiteLines, summaryLine, type SuiteResult, type TestOutcome } from './report';
import { runTestCase } from './run-test-case';
import { runTickCase } from './run-tick';
import type { TestCase, TestFile } from './test-file';
import { jsonReport } from './test-json';
import { engineEventOf } from './wire-event';

export interface TestOptions {
  junit: string | null;
  coverage: boolean;
  verbose: boolean;
  /** Only tests whose name contains this (case-insensitive), or matches it as `/regex/`. */
  run?: string | null;
  /** A test whose action no mechanism of its file's policies reacts to is an error instead of a warning. */
  strict?: boolean;
  /** `json`: one JSON document on stdout instead of the text lines (test-json.ts). */
  format?: 'text' | 'json';
}

/** Below this many tests a progress bar would only flicker. */
export const PROGRESS_THRESHOLD = 50;

interface ReadySuite {
  file: TestFile;
  set: PolicySet;
  policies: LoadedPolicy[];
  timers: ReadonlyMap<string, LoadedTimer>;
  recordedActions: Set<string>;
}

/**
 * `custos policy test [path...]`: reads every test file and its policies first (any invalid one is reported with its
 * location and makes the exit code 2), then runs the tests of the valid files, one line per test, a diff per failure
 * and the summary `N passed, N failed`.
 */
export async function runTests(inputs: readonly string[], options: TestOptions, output: Output): Promise<ExitCode> {
  const found = findFiles(inputs, '.test.yaml');
  for (const problem of found.problems) output.err(formatProblem(problem));
  if (found.files.length === 0) {
    if (found.problems.length === 0) output.err(`no \`*.test.yaml\` files found in ${inputs.map((input) => `\`${input}\``).join(', ')}`);
    return EXIT_CODES.usage;
  }

  const cache = new PolicyCache();
  const folders = new Map<string, FolderSettings>();
  const ready: ReadySuite[] = [];
  const broken: Array<{ file: string; problems: LocatedProblem[] }> = [];
  const selected = testSelector(options.run ?? null);
  if (!selected.ok) {
    output.err(selected.message);
    return EXIT_CODES.usage;
  }
  for (const path of found.files) {
    const loaded = prepare(path, cache, folders, selected.matches);
    if ('problems' in loaded) {
      broken.push({ file: path, problems: loaded.problems });
      continue;
    }
    const unmatched = unmatchedActions(loaded);
    if (options.strict === true && unmatched.length > 0) {
      broken.push({ file: path, problems: unmatched });
      continue;
    }
    for (const problem of unmatched) output.err(formatProblem({ ...problem, message: `warning: ${problem.message}` }));
    if (loaded.file.tests.length > 0) ready.push(loaded);
  }
  if (options.run !== undefined && options.run !== null && ready.every((suite) => suite.file.tests.length === 0) && broken.length === 0) {
    output.err(`no test matches \`${options.run}\``);
    return EXIT_CODES.usage;
  }

  const json = options.format === 'json';
  const total = ready.reduce((sum, suite) => sum + suite.file.tests.length, 0);
  const bar = !json && output.interactive && total >= PROGRESS_THRESHOLD ? new SingleBar({ clearOnComplete: true, hideCursor: true }, Presets.shades_classic) : null;
  bar?.start(total, 0);
  const coverage = new BranchCoverage();
  const results: SuiteResult[] = [];
  const lines: string[] = [];
  // With a bar, results are printed once it is gone; without one, as each file finishes.
  const flush = () => {
    if (bar !== null || json) return;
    for (const line of lines.splice(0)) output.out(line);
  };

  for (const suite of ready) {
    const suiteResult: SuiteResult = { file: suite.file.file, tests: [] };
    for (const test of suite.file.tests) {
      const started = performance.now();
      const outcome = await runSafely(suite, test);
      const seconds = (performance.now() - started) / 1000;
      bar?.increment();
      if (options.coverage && 'explanation' in outcome) coverage.add(outcome.explanation, suite.policies);
      suiteResult.tests.push({ test, outcome, seconds });
    }
    results.push(suiteResult);
    lines.push(...suiteLines(suiteResult, options.verbose));
    flush();
  }
  bar?.stop();
  if (!json) for (const line of lines.splice(0)) output.out(line);

  const passed = results.reduce((sum, suite) => sum + suite.tests.filter(isPassed).length, 0);
  const failed = total - passed;
  const junit: JunitSuite[] = results.map(junitSuite);
  for (const item of broken) {
    if (!json) {
      output.out(`${item.file}: cannot run, the test file or a policy it names is invalid`);
      for (const problem of item.problems) output.out(`  ${formatProblem(problem)}`);
    }
    const text = item.problems.map(formatProblem).join('\n');
    junit.push({ name: item.file, cases: [], error: { message: item.problems[0]?.message ?? 'invalid', text } });
  }

  if (json) output.out(`${JSON.stringify(jsonReport(results, broken, options.coverage ? coverage.report() : null, options.verbose), null, 2)}\n`);
  else {
    if (options.coverage) for (const line of formatCoverage(coverage.report())) output.out(line);
    output.out(summaryLine(passed, failed));
  }

  if (options.junit !== null) {
    try {
      writeFileSync(options.junit, junitXml(junit));
    } catch (error) {
      output.err(`${options.junit}: cannot be written: ${unreadable(error).replace(/^cannot be read: /, '')}`);
      return EXIT_CODES.usage;
    }
  }
  if (broken.length > 0 || found.problems.length > 0) return EXIT_CODES.usage;
  return failed > 0 ? EXIT_CODES.failed : EXIT_CODES.ok;
}

function prepare(
  path: string,
  cache: PolicyCache,
  folders: Map<string, FolderSettings>,
  selects: (name: string) => boolean,
): ReadySuite | { problems: LocatedProblem[] } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    return { problems: [{ file: path, message: unreadable(error) }] };
  }
  const folder = folderSettingsFor(path, folders);
  if (!folder.ok) return { problems: folder.problems };
  const read = readTestFile(path, text, folder.settings);
  if (!read.ok) return { problems: read.problems };
  const tests = read.file.tests.filter((test) => selects(test.name));
  if (tests.length === 0) return { file: { ...read.file, tests }, set: emptyPolicySet(), policies: [], timers: new Map(), recordedActions: new Set() };
  const policies = cache.setFor(read.file);
  if (!policies.ok) return { problems: policies.problems };
  const unknown = unknownTimers(path, tests, policies.timers);
  if (unknown.length > 0) return { problems: unknown };
  const recordedActions = new Set(policies.policies.flatMap((loaded) => loaded.policy.historyActions));
  return { file: { ...read.file, tests }, set: policies.set, policies: policies.policies, timers: policies.timers, recordedActions };
}

/** Ticks of timers that are not among the file's policy paths: the file cannot run, as with a missing policy. */
function unknownTimers(file: string, tests: readonly TestCase[], timers: ReadonlyMap<string, LoadedTimer>): LocatedProblem[] {
  const problems: LocatedProblem[] = [];
  for (const test of tests) {
    if (!('tick' in test) || timers.has(test.tick.timer)) continue;
    const closest = closestName(test.tick.timer, timers.keys());
    const known =
      timers.size === 0
        ? 'they hold no valid timer (`custos policy check` says what is wrong with one)'
        : closest === null
          ? `the timers are ${[...timers.keys()].map((id) => `\`${id}\``).join(', ')}`
          : `did you mean \`${closest}\`?`;
    problems.push({
      file,
      ...(test.tick.line === undefined ? {} : { line: test.tick.line }),
      ...(test.tick.column === undefined ? {} : { column: test.tick.column }),
      message: `${test.path}.tick.timer: no timer \`${test.tick.timer}\` in the file's policy paths; ${known}`,
    });
  }
  return problems;
}

/**
 * Tests whose event names an action no mechanism of the file's policies reacts to: almost always a misspelt action,
 * which the default decision would otherwise quietly answer.
 */
function unmatchedActions(suite: ReadySuite): LocatedProblem[] {
  const actions = new Set(suite.policies.flatMap((loaded) => loaded.policy.actions));
  const problems: LocatedProblem[] = [];
  for (const test of suite.file.tests) {
    // A timer's events are the timer's business: a tick test checks what is decided on them, whatever it is.
    if ('tick' in test) continue;
    const action = engineEventOf(test.event).action;
    if (actions.has(action)) continue;
    problems.push({
      file: suite.file.file,
      ...(test.line === undefined ? {} : { line: test.line }),
      message: `test \`${test.name}\`: no mechanism of the file's policies reacts to \`${action}\`, so the default decision answers${didYouMean(action, actions)}`,
    });
  }
  return problems;
}

/** `--run`: a name fragment (case-insensitive) or a `/regular expression/`. */
function testSelector(pattern: string | null): { ok: true; matches: (name: string) => boolean } | { ok: false; message: string } {
  if (pattern === null) return { ok: true, matches: () => true };
  const regex = /^\/(.*)\/([a-z]*)$/s.exec(pattern);
  if (regex === null) {
    const fragment = pattern.toLowerCase();
    return { ok: true, matches: (name) => name.toLowerCase().includes(fragment) };
  }
  try {
    const expression = new RegExp(regex[1] ?? '', regex[2]);
    return { ok: true, matches: (name) => expression.test(name) };
  } catch (error) {
    return { ok: false, message: `--run \`${pattern}\` is not a regular expression: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** ``; did you mean `x`?`` for the closest known name, if one is close. */
function didYouMean(name: string, candidates: Iterable<string>): string {
  const closest = closestName(name, candidates);
  return closest === null ? '' : `; did you mean \`${closest}\`?`;
}

/** A test that throws is a bug in the runner or the engine; it fails that test instead of ending the run. */
async function runSafely(suite: ReadySuite, test: TestCase): Promise<TestOutcome> {
  try {
    if (!('tick' in test)) return await runTestCase(suite.file, test, suite.set, suite.recordedActions);
    const timer = suite.timers.get(test.tick.timer);
    if (timer === undefined) return { crash: `internal error: timer \`${test.tick.timer}\` was not loaded` };
    return await runTickCase(suite.file, test, timer.timer, suite.set, suite.recordedActions);
  } catch (error) {
    return { crash: `internal error: ${error instanceof Error ? error.message : String(error)}` };
  }
}
