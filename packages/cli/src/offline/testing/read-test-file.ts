import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { LocatedProblem } from '../../output/located';
import { unreadable } from '../files';
import { FIXTURE_TAG, FixtureSet } from './fixtures';
import { readExpectation } from './read-expectation';
import { readTick, readTickExpectation } from './read-tick';
import { Shape } from './shape';
import { expandTable } from './table';
import type { PipStub, PxpStub, SolutionTestSettings, TestCase, TestFile, TestSettings } from './test-file';
import { readWireEvent } from './wire-event';
import { formatPath, readYaml, type PathSegment, type Position } from './yaml-source';

const PIP_METHOD = /^urn:info:[a-z0-9._-]+:[A-Za-z0-9._-]+$|^[A-Za-z0-9._-]+$/;
const ACTION_URN = /^urn:action:[a-z0-9._-]+:[A-Za-z0-9._-]+$/;

export type TestFileRead = { ok: true; file: TestFile } | { ok: false; problems: LocatedProblem[] };

type Locate = (path: readonly PathSegment[]) => Position | undefined;

/**
 * Reads a `*.test.yaml` file: YAML syntax first (located by the yaml library), then its shape, reporting every
 * problem with its path inside the file (`tests[2].expect.allowed`) and where it is written. Fixture files it
 * `include`s are read with `readText` (relative to the test file); their problems are located in them. Its `settings`
 * apply over `base` (those of the folder's `custos.settings.yaml`, if any).
 */
export function readTestFile(
  file: string,
  text: string,
  base: TestSettings = DEFAULT_SETTINGS,
  readText: (file: string) => string = (name) => readFileSync(name, 'utf8'),
): TestFileRead {
  const yaml = readYaml(text, [FIXTURE_TAG]);
  if (!yaml.ok) return { ok: false, problems: yaml.problems.map((problem) => ({ file, ...problem })) };
  const shape = new Shape(yaml.source.locate);
  const included: LocatedProblem[] = [];
  const parsed = readRoot(yaml.source.value, file, shape, yaml.source.locate, base, (list) => readIncludes(list, file, shape, readText, included));
  if (parsed === undefined || shape.problems.length > 0 || included.length > 0) return { ok: false, problems: [...included, ...problemsOf(file, shape)] };
  return { ok: true, file: parsed };
}

/** A shape's problems in the order they are written, each `path: message` at its place in `file`. */
function problemsOf(file: string, shape: Shape): LocatedProblem[] {
  const inOrder = [...shape.problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  return inOrder.map(({ path: where, message, line, column }) => ({
    file,
    message: where === '' ? message : `${where}: ${message}`,
    ...(line === undefined ? {} : { line }),
    ...(column === undefined ? {} : { column }),
  }));
}

/**
 * `include: [files]`: fixture files (docs/cli.md, "Fixtures"), each holding only a `fixtures` section, read into one
 * set before the test file's own fixtures. A file that cannot be read is a problem at its entry in `include`.
 */
function readIncludes(value: unknown, file: string, shape: Shape, readText: (file: string) => string, problems: LocatedProblem[]): FixtureSet {
  const fixtures = new FixtureSet();
  if (value === undefined) return fixtures;
  shape.list(value, ['include'])?.forEach((item, index) => {
    const written = shape.string(item, ['include', index], { nonEmpty: true });
    if (written === undefined) return;
    const included = path.join(path.dirname(file), written);
    let text: string;
    try {
      text = readText(included);
    } catch (error) {
      shape.fail(['include', index], `\`${written}\` (${included}): ${unreadable(error)}`);
      return;
    }
    const yaml = readYaml(text, [FIXTURE_TAG]);
    if (!yaml.ok) {
      problems.push(...yaml.problems.map((problem) => ({ file: included, ...problem })));
      return;
    }
    const own = new Shape(yaml.source.locate);
    const root = yaml.source.value === null || yaml.source.value === undefined ? own.fail([], 'the file is empty; a fixture file holds `fixtures`') : own.record(yaml.source.value, [], { required: ['fixtures'] });
    if (root?.fixtures !== undefined) fixtures.read(root.fixtures, ['fixtures'], own, included, yaml.source.locate);
    problems.push(...problemsOf(included, own));
  });
  return fixtures;
}

function readRoot(
  value: unknown,
  file: string,
  shape: Shape,
  locate: Locate,
  base: TestSettings,
  include: (list: unknown) => FixtureSet,
): TestFile | undefined {
  if (value === null || value === undefined) return shape.fail([], 'the file is empty; it needs `policies` and `tests`');
  const root = shape.record(value, [], { required: ['policies', 'tests'], optional: ['settings', 'pips', 'pxps', 'include', 'fixtures'] });
  if (root === undefined) return undefined;
  const directory = path.dirname(file);
  const policies: TestFile['policies'] = [];
  const list = shape.list(root.policies, ['policies']);
  if (list !== undefined && list.length === 0) shape.fail(['policies'], 'names no policy');
  list?.forEach((item, index) => {
    const written = shape.string(item, ['policies', index], { nonEmpty: true });
    if (written !== undefined) policies.push({ path: path.join(directory, written), written, ...locate(['policies', index]) });
  });
  const fixtures = include(root.include);
  if (root.fixtures !== undefined) fixtures.read(root.fixtures, ['fixtures'], shape, file, locate);
  const settings = readSettings(root.settings, shape, base);
  const filePips = root.pips === undefined ? undefined : fixtures.resolve(root.pips, ['pips'], shape);
  const filePxps = root.pxps === undefined ? undefined : fixtures.resolve(root.pxps, ['pxps'], shape);
  const pips = filePips === undefined ? [] : readPips(filePips, ['pips'], shape);
  const pxps = filePxps === undefined ? [] : readPxps(filePxps, ['pxps'], shape);
  const tests: TestCase[] = [];
  const testList = shape.list(root.tests, ['tests']);
  if (testList !== undefined && testList.length === 0) shape.fail(['tests'], 'holds no test');
  const names = new Map<string, string>();
  const add = (test: TestCase | undefined, at: readonly PathSegment[]) => {
    if (test === undefined) return;
    const seen = names.get(test.name);
    if (seen !== undefined) shape.fail([...at, 'name'], `repeats the name of ${seen}`);
    else names.set(test.name, test.path);
    tests.push(test);
  };
  testList?.forEach((item, index) => {
    const at: PathSegment[] = ['tests', index];
    const resolved = fixtures.resolve(item, at, shape);
    if (resolved === undefined) return;
    if (typeof resolved !== 'object' || resolved === null || Array.isArray(resolved) || !('table' in resolved)) {
      add(readTest(resolved, at, shape, locate, fixtures), at);
      return;
    }
    const rows = expandTable(resolved as Record<string, unknown>, at, shape);
    // A mistake in the table's shared parts would show in every row: each problem is reported once, at its first row.
    const reported = new Set<string>();
    for (const row of rows ?? []) {
      const rowShape = new Shape(() => locate(row.at));
      const test = readTest(row.test, row.at, rowShape, () => locate(row.at), fixtures);
      for (const problem of rowShape.problems) {
        const key = `${problem.path.replace(/\.rows\[\d+\]/, '')}\0${problem.message}`;
        if (!reported.has(key)) shape.problems.push(problem);
        reported.add(key);
      }
      add(test === undefined ? undefined : { ...test, table: { name: row.table, row: row.row } }, row.at);
    }
  });
  if (settings === undefined) return undefined;
  return { file, policies, settings, pips, pxps, tests };
}

/** The settings of a test with none written anywhere: the pdp's defaults, no solution settings. */
export const DEFAULT_SETTINGS: TestSettings = { defaultDecision: 'allow', timeZone: 'UTC', solutions: new Map() };

const SOLUTION = /^[a-z0-9._-]+$/;

/**
 * A `settings` mapping (of a test file, `eval --context`, or a folder's `custos.settings.yaml`, whose root it is:
 * `at` = []) over `base`: each field given replaces base's, each solution under `solutions` replaces base's entry of
 * that solution.
 */
export function readSettings(value: unknown, shape: Shape, base: TestSettings = DEFAULT_SETTINGS, at: readonly PathSegment[] = ['settings']): TestSettings | undefined {
  const settings: TestSettings = { ...base };
  if (value === undefined) return settings;
  const record = shape.record(value, at, { optional: ['defaultDecision', 'timeZone', 'solutions'] });
  if (record === undefined) return undefined;
  let ok = true;
  if (record.defaultDecision !== undefined) {
    const decision = shape.oneOf(record.defaultDecision, [...at, 'defaultDecision'], ['allow', 'inhibit'] as const);
    if (decision === undefined) ok = false;
    else settings.defaultDecision = decision;
  }
  if (record.timeZone !== undefined) {
    const zone = shape.string(record.timeZone, [...at, 'timeZone'], { nonEmpty: true });
    if (zone !== undefined && !isTimeZone(zone)) shape.fail([...at, 'timeZone'], `\`${zone}\` is not an IANA time zone`);
    if (zone === undefined || !isTimeZone(zone)) ok = false;
    else settings.timeZone = zone;
  }
  if (record.solutions !== undefined) {
    const solutions = readSolutions(record.solutions, shape, [...at, 'solutions']);
    if (solutions === undefined) ok = false;
    else settings.solutions = new Map([...base.solutions, ...solutions]);
  }
  return ok ? settings : undefined;
}

/** `solutions: {acme: {defaultDecision: inhibit}}`: each solution's settings as pap holds them (`custos solution settings`). */
function readSolutions(value: unknown, shape: Shape, at: readonly PathSegment[]): Map<string, SolutionTestSettings> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return shape.fail(at, 'must be a mapping of solutions to their settings');
  const record = value as Record<string, unknown>;
  const solutions = new Map<string, SolutionTestSettings>();
  let ok = true;
  for (const [solution, item] of Object.entries(record)) {
    if (!SOLUTION.test(solution)) {
      shape.fail([...at, solution], `\`${solution}\` is not a solution name (lower-case letters, digits, \`.\`, \`_\`, \`-\`)`);
      ok = false;
      continue;
    }
    const entry = shape.record(item, [...at, solution], { optional: ['defaultDecision'] });
    if (entry === undefined) {
      ok = false;
      continue;
    }
    const own: SolutionTestSettings = {};
    if (entry.defaultDecision !== undefined) {
      const decision = shape.oneOf(entry.defaultDecision, [...at, solution, 'defaultDecision'], ['allow', 'inhibit'] as const);
      if (decision === undefined) ok = false;
      else own.defaultDecision = decision;
    }
    solutions.set(solution, own);
  }
  return ok ? solutions : undefined;
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export function readPips(value: unknown, at: readonly PathSegment[], shape: Shape): PipStub[] {
  const stubs: PipStub[] = [];
  shape.list(value, at)?.forEach((item, index) => {
    const where = [...at, index];
    const record = shape.record(item, where, { required: ['method'], optional: ['parameters', 'value', 'fail'] });
    if (record === undefined) return;
    const method = shape.string(record.method, [...where, 'method'], { pattern: PIP_METHOD, hint: 'is not a PIP method; expected `urn:info:<solution>:<name>`' });
    const parameters = record.parameters === undefined ? null : shape.record(record.parameters, [...where, 'parameters'], { optional: Object.keys(asRecord(record.parameters)) });
    const fail = record.fail === undefined ? false : shape.boolean(record.fail, [...where, 'fail']);
    if (fail === false && !('value' in record)) shape.fail(where, 'needs `value` (the answer) or `fail: true`');
    if (fail === true && 'value' in record) shape.fail([...where, 'value'], 'cannot be given with `fail: true`');
    if (method === undefined || parameters === undefined || fail === undefined) return;
    stubs.push({ method, parameters, value: record.value, fail });
  });
  return stubs;
}

export function readPxps(value: unknown, at: readonly PathSegment[], shape: Shape): PxpStub[] {
  const stubs: PxpStub[] = [];
  shape.list(value, at)?.forEach((item, index) => {
    const where = [...at, index];
    const record = shape.record(item, where, { required: ['action', 'answer'] });
    if (record === undefined) return;
    const action = shape.string(record.action, [...where, 'action'], { pattern: ACTION_URN, hint: 'is not an action; expected `urn:action:<solution>:<name>`' });
    const answer = shape.boolean(record.answer, [...where, 'answer']);
    if (action !== undefined && answer !== undefined) stubs.push({ action, answer });
  });
  return stubs;
}

/** One test, with `event` (and `history`) or `tick`; events may take an event fixture with `use`. */
function readTest(value: unknown, at: readonly PathSegment[], shape: Shape, locate: Locate, fixtures: FixtureSet): TestCase | undefined {
  const record = shape.record(value, at, { required: ['name', 'expect'], optional: ['event', 'tick', 'history', 'pips', 'pxps'] });
  if (record === undefined) return undefined;
  const name = shape.string(record.name, [...at, 'name'], { nonEmpty: true });
  if (record.event === undefined && record.tick === undefined) shape.fail(at, 'needs `event` (an event to decide) or `tick` (a timer at an instant)');
  if (record.event !== undefined && record.tick !== undefined) shape.fail([...at, 'tick'], 'a test has `event` or `tick`, not both');
  const readEvent = (raw: unknown, where: readonly PathSegment[]) => {
    const expanded = fixtures.expandEvent(raw, where, shape);
    return expanded === undefined ? undefined : readWireEvent(expanded, where, shape);
  };
  const event = record.event === undefined ? undefined : readEvent(record.event, [...at, 'event']);
  const tick = record.tick === undefined ? undefined : readTick(record.tick, [...at, 'tick'], shape, locate);
  const now = event?.timestamp ?? tick?.at;
  const history: TestCase['history'] = [];
  if (record.history !== undefined) {
    shape.list(record.history, [...at, 'history'])?.forEach((item, position) => {
      const earlier = readEvent(item, [...at, 'history', position]);
      if (earlier === undefined) return;
      if (now !== undefined && earlier.timestamp > now) {
        shape.fail([...at, 'history', position, 'timestamp'], `is after the test's ${event === undefined ? 'tick' : 'event'} (${now}); history holds earlier events`);
        return;
      }
      history.push(earlier);
    });
  }
  const pips = record.pips === undefined ? [] : readPips(record.pips, [...at, 'pips'], shape);
  const pxps = record.pxps === undefined ? [] : readPxps(record.pxps, [...at, 'pxps'], shape);
  const line = locate(at)?.line;
  const base = { path: formatPath(at), ...(line === undefined ? {} : { line }), history, pips, pxps };
  if (record.expect === undefined) return undefined;
  // The expectation is read as the test's kind is written, even when its `tick` itself was refused.
  if (record.tick !== undefined && record.event === undefined) {
    const expectation = readTickExpectation(record.expect, [...at, 'expect'], shape);
    return expectation === undefined || tick === undefined || name === undefined ? undefined : { name, ...base, tick, expect: expectation };
  }
  const expectation = readExpectation(record.expect, [...at, 'expect'], shape);
  return expectation === undefined || event === undefined || name === undefined ? undefined : { name, ...base, event, expect: expectation };
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
