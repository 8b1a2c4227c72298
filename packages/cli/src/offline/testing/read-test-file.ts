import path from 'node:path';
import type { LocatedProblem } from '../../output/located';
import { Shape } from './shape';
import type { ExpectedExecute, ExpectedModifier, ExpectedParameter, Expectation, PipStub, PxpStub, SolutionTestSettings, TestCase, TestFile, TestSettings } from './test-file';
import { readWireEvent } from './wire-event';
import { readYaml, type PathSegment } from './yaml-source';

const PIP_METHOD = /^urn:info:[a-z0-9._-]+:[A-Za-z0-9._-]+$|^[A-Za-z0-9._-]+$/;
const ACTION_URN = /^urn:action:[a-z0-9._-]+:[A-Za-z0-9._-]+$/;

export type TestFileRead = { ok: true; file: TestFile } | { ok: false; problems: LocatedProblem[] };

/**
 * Reads a `*.test.yaml` file: YAML syntax first (located by the yaml library), then its shape, reporting every
 * problem with its path inside the file (`tests[2].expect.allowed`) and where it is written. Its `settings` apply over
 * `base` (those of the folder's `custos.settings.yaml`, if any).
 */
export function readTestFile(file: string, text: string, base: TestSettings = DEFAULT_SETTINGS): TestFileRead {
  const yaml = readYaml(text);
  if (!yaml.ok) return { ok: false, problems: yaml.problems.map((problem) => ({ file, ...problem })) };
  const shape = new Shape(yaml.source.locate);
  const parsed = readRoot(yaml.source.value, file, shape, yaml.source.locate, base);
  if (parsed === undefined || shape.problems.length > 0) {
    const inOrder = [...shape.problems].sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
    return {
      ok: false,
      problems: inOrder.map(({ path: where, message, line, column }) => ({
        file,
        message: where === '' ? message : `${where}: ${message}`,
        ...(line === undefined ? {} : { line }),
        ...(column === undefined ? {} : { column }),
      })),
    };
  }
  return { ok: true, file: parsed };
}

function readRoot(
  value: unknown,
  file: string,
  shape: Shape,
  locate: (path: readonly PathSegment[]) => { line: number; column: number } | undefined,
  base: TestSettings,
): TestFile | undefined {
  if (value === null || value === undefined) return shape.fail([], 'the file is empty; it needs `policies` and `tests`');
  const root = shape.record(value, [], { required: ['policies', 'tests'], optional: ['settings', 'pips', 'pxps'] });
  if (root === undefined) return undefined;
  const directory = path.dirname(file);
  const policies: TestFile['policies'] = [];
  const list = shape.list(root.policies, ['policies']);
  if (list !== undefined && list.length === 0) shape.fail(['policies'], 'names no policy');
  list?.forEach((item, index) => {
    const written = shape.string(item, ['policies', index], { nonEmpty: true });
    if (written !== undefined) policies.push({ path: path.join(directory, written), written, ...locate(['policies', index]) });
  });
  const settings = readSettings(root.settings, shape, base);
  const pips = root.pips === undefined ? [] : readPips(root.pips, ['pips'], shape);
  const pxps = root.pxps === undefined ? [] : readPxps(root.pxps, ['pxps'], shape);
  const tests: TestCase[] = [];
  const testList = shape.list(root.tests, ['tests']);
  if (testList !== undefined && testList.length === 0) shape.fail(['tests'], 'holds no test');
  const names = new Map<string, number>();
  testList?.forEach((item, index) => {
    const test = readTest(item, index, shape, locate);
    if (test === undefined) return;
    const seen = names.get(test.name);
    if (seen !== undefined) shape.fail(['tests', index, 'name'], `repeats the name of tests[${seen}]`);
    else names.set(test.name, index);
    tests.push(test);
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

function readTest(value: unknown, index: number, shape: Shape, locate: (path: readonly PathSegment[]) => { line: number; column: number } | undefined): TestCase | undefined {
  const at: PathSegment[] = ['tests', index];
  const record = shape.record(value, at, { required: ['name', 'event', 'expect'], optional: ['history', 'pips', 'pxps'] });
  if (record === undefined) return undefined;
  const name = shape.string(record.name, [...at, 'name'], { nonEmpty: true });
  // A missing `event` or `expect` is reported once, by `record`.
  const event = record.event === undefined ? undefined : readWireEvent(record.event, [...at, 'event'], shape);
  const history: TestCase['history'] = [];
  if (record.history !== undefined) {
    shape.list(record.history, [...at, 'history'])?.forEach((item, position) => {
      const earlier = readWireEvent(item, [...at, 'history', position], shape);
      if (earlier === undefined) return;
      if (event !== undefined && earlier.timestamp > event.timestamp) {
        shape.fail([...at, 'history', position, 'timestamp'], `is after the test's event (${event.timestamp}); history holds earlier events`);
        return;
      }
      history.push(earlier);
    });
  }
  const pips = record.pips === undefined ? [] : readPips(record.pips, [...at, 'pips'], shape);
  const pxps = record.pxps === undefined ? [] : readPxps(record.pxps, [...at, 'pxps'], shape);
  const expectation = record.expect === undefined ? undefined : readExpectation(record.expect, [...at, 'expect'], shape);
  if (name === undefined || event === undefined || expectation === undefined) return undefined;
  const line = locate(at)?.line;
  return { name, path: `tests[${index}]`, ...(line === undefined ? {} : { line }), event, history, pips, pxps, expect: expectation };
}

function readExpectation(value: unknown, at: readonly PathSegment[], shape: Shape): Expectation | undefined {
  const record = shape.record(value, at, { required: ['allowed'], optional: ['modifiers', 'delay', 'executes'] });
  if (record === undefined) return undefined;
  const allowed = shape.boolean(record.allowed, [...at, 'allowed']);
  // Read on after a bad `allowed`, so every problem of the expectation is reported at once.
  const expectation: Expectation = { allowed: allowed ?? false };
  if (record.delay !== undefined) {
    const delay = shape.integer(record.delay, [...at, 'delay']);
    if (delay !== undefined) expectation.delay = delay;
  }
  if (record.modifiers !== undefined) {
    const modifiers: ExpectedModifier[] = [];
    shape.list(record.modifiers, [...at, 'modifiers'])?.forEach((item, index) => {
      const modifier = readModifier(item, [...at, 'modifiers', index], shape);
      if (modifier !== undefined) modifiers.push(modifier);
    });
    expectation.modifiers = modifiers;
  }
  if (record.executes !== undefined) {
    const executes: ExpectedExecute[] = [];
    shape.list(record.executes, [...at, 'executes'])?.forEach((item, index) => {
      const where = [...at, 'executes', index];
      if (typeof item === 'string') {
        const action = shape.string(item, where, { pattern: ACTION_URN, hint: 'is not an action; expected `urn:action:<solution>:<name>`' });
        if (action !== undefined) executes.push({ action, parameters: null });
        return;
      }
      const entry = shape.record(item, where, { required: ['action'], optional: ['parameters'] });
      if (entry === undefined) return;
      const action = shape.string(entry.action, [...where, 'action'], { pattern: ACTION_URN, hint: 'is not an action; expected `urn:action:<solution>:<name>`' });
      const parameters = entry.parameters === undefined ? null : shape.record(entry.parameters, [...where, 'parameters'], { optional: Object.keys(asRecord(entry.parameters)) });
      if (action !== undefined && parameters !== undefined) executes.push({ action, parameters });
    });
    expectation.executes = executes;
  }
  return allowed === undefined ? undefined : expectation;
}

function readModifier(value: unknown, at: readonly PathSegment[], shape: Shape): ExpectedModifier | undefined {
  const record = shape.record(value, at, { required: ['name'], optional: ['expression', 'engine'] });
  if (record === undefined) return undefined;
  const name = shape.string(record.name, [...at, 'name'], { nonEmpty: true });
  const modifier: ExpectedModifier = { name: name ?? '' };
  if (record.expression !== undefined) {
    const expression = shape.string(record.expression, [...at, 'expression']);
    if (expression !== undefined) modifier.expression = expression;
  }
  if (record.engine !== undefined) {
    const engines = shape.list(record.engine, [...at, 'engine']);
    if (engines !== undefined && engines.length !== 1) shape.fail([...at, 'engine'], 'must hold exactly one engine, as every modifier on the wire does');
    modifier.engine = [];
    engines?.forEach((item, index) => {
      const where = [...at, 'engine', index];
      const engine = shape.record(item, where, { optional: ['method', 'parameters'] });
      if (engine === undefined) return;
      const entry: { method?: string; parameters?: ExpectedParameter[] } = {};
      if (engine.method !== undefined) {
        const method = shape.string(engine.method, [...where, 'method'], { nonEmpty: true });
        if (method !== undefined) entry.method = method;
      }
      if (engine.parameters !== undefined) {
        const parameters: ExpectedParameter[] = [];
        shape.list(engine.parameters, [...where, 'parameters'])?.forEach((parameter, position) => {
          const p = [...where, 'parameters', position];
          const read = shape.record(parameter, p, { required: ['name', 'value'] });
          if (read === undefined) return;
          const parameterName = shape.string(read.name, [...p, 'name'], { nonEmpty: true });
          const typed = shape.record(read.value, [...p, 'value'], { optional: ['value', 'type', 'isComplex'] });
          if (parameterName !== undefined && typed !== undefined) parameters.push({ name: parameterName, value: typed });
        });
        entry.parameters = parameters;
      }
      modifier.engine?.push(entry);
    });
  }
  return name === undefined ? undefined : modifier;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
