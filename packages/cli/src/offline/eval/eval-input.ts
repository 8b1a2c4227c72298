import type { Event } from '@custos/contracts';
import type { LocatedProblem } from '../../output/located';
import { readPips, readPxps, readSettings } from '../testing/read-test-file';
import { Shape } from '../testing/shape';
import type { Scene } from '../testing/play-event';
import { readWireEvent } from '../testing/wire-event';
import { readYaml, type PathSegment } from '../testing/yaml-source';

const ACTION_URN = /^urn:action:([a-z0-9._-]+):([A-Za-z0-9._-]+)$/;
const SHORT_ACTION = /^([a-z0-9._-]+):([A-Za-z0-9._-]+)$/;

/** Where the event comes from: a file's text (YAML or JSON), or the flags. */
export type EventSource = { kind: 'text'; file: string; text: string } | { kind: 'flags'; action: string; params: readonly string[] };

export type Read<T> = { ok: true; value: T } | { ok: false; problems: LocatedProblem[] };

/** Problems of one YAML document, in reading order, each with its path inside the document. */
function problemsOf(file: string, shape: Shape): LocatedProblem[] {
  return shape.problems.map(({ path, message, line, column }) => ({
    file,
    message: path === '' ? message : `${path}: ${message}`,
    ...(line === undefined ? {} : { line }),
    ...(column === undefined ? {} : { column }),
  }));
}

/**
 * The event of `custos eval`: a document in the form of a test's `event` (wire or short parameters; `timestamp` may
 * be left out and is then `at`), or `--action` with `--param name=value` (the value read as YAML, so JSON works).
 */
export function readEvalEvent(source: EventSource, at: number): Read<Event> {
  if (source.kind === 'flags') return eventFromFlags(source.action, source.params, at);
  const yaml = readYaml(source.text);
  if (!yaml.ok) return { ok: false, problems: yaml.problems.map((problem) => ({ file: source.file, ...problem })) };
  const shape = new Shape(yaml.source.locate);
  const value: unknown = yaml.source.value;
  const withTime = typeof value === 'object' && value !== null && !Array.isArray(value) && !('timestamp' in value) ? { ...value, timestamp: at } : value;
  const event = readWireEvent(withTime, [], shape);
  return event === undefined ? { ok: false, problems: problemsOf(source.file, shape) } : { ok: true, value: event };
}

function eventFromFlags(action: string, params: readonly string[], at: number): Read<Event> {
  const problems: LocatedProblem[] = [];
  const named = ACTION_URN.exec(action) ?? SHORT_ACTION.exec(action);
  if (named === null) problems.push({ file: '--action', message: `\`${action}\` is not an action; expected \`urn:action:<solution>:<name>\` or \`<solution>:<name>\`` });
  const parameters: Record<string, unknown> = {};
  for (const param of params) {
    const equals = param.indexOf('=');
    if (equals <= 0) {
      problems.push({ file: '--param', message: `\`${param}\` is not \`name=value\`` });
      continue;
    }
    const yaml = readYaml(param.slice(equals + 1));
    if (!yaml.ok) {
      problems.push({ file: '--param', message: `\`${param}\`: ${yaml.problems[0]?.message ?? 'is not YAML'}` });
      continue;
    }
    parameters[param.slice(0, equals)] = yaml.source.value ?? null;
  }
  if (problems.length > 0 || named === null) return { ok: false, problems };
  const shape = new Shape(() => undefined);
  const event = readWireEvent({ actionId: { scope: named[1], action: named[2] }, timestamp: at, parameters }, [], shape);
  return event === undefined ? { ok: false, problems: problemsOf('--param', shape) } : { ok: true, value: event };
}

/** `--context`: a test file's `settings`, `pips` and `pxps`, and the `history` of earlier events. */
export function readEvalContext(file: string, text: string, event: Event): Read<Omit<Scene, 'event'>> {
  const yaml = readYaml(text);
  if (!yaml.ok) return { ok: false, problems: yaml.problems.map((problem) => ({ file, ...problem })) };
  const shape = new Shape(yaml.source.locate);
  const value = yaml.source.value ?? {};
  const root = shape.record(value, [], { optional: ['settings', 'pips', 'pxps', 'history'] });
  if (root === undefined) return { ok: false, problems: problemsOf(file, shape) };
  const settings = readSettings(root.settings, shape);
  const pips = root.pips === undefined ? [] : readPips(root.pips, ['pips'], shape);
  const pxps = root.pxps === undefined ? [] : readPxps(root.pxps, ['pxps'], shape);
  const history: Event[] = [];
  if (root.history !== undefined) {
    shape.list(root.history, ['history'])?.forEach((item, position) => {
      const where: PathSegment[] = ['history', position];
      const earlier = readWireEvent(item, where, shape);
      if (earlier === undefined) return;
      if (earlier.timestamp > event.timestamp) shape.fail([...where, 'timestamp'], `is after the event (${event.timestamp}); history holds earlier events`);
      else history.push(earlier);
    });
  }
  if (settings === undefined || shape.problems.length > 0) return { ok: false, problems: problemsOf(file, shape) };
  return { ok: true, value: { settings, pips, pxps, history } };
}
