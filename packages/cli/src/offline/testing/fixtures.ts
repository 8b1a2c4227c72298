import { javaValue } from '@custos/contracts';
import { closestName } from '@custos/policy-engine';
import type { ScalarTag } from 'yaml';
import type { Shape } from './shape';
import { readWireEvent } from './wire-event';
import type { PathSegment, Position } from './yaml-source';

/** `!fixture ann` as read from YAML: a reference to the value fixture `ann`, replaced by its value before the shape is read. */
export class FixtureReference {
  constructor(readonly name: string) {}
}

/** The one tag of test and fixture files. */
export const FIXTURE_TAG: ScalarTag = {
  tag: '!fixture',
  identify: (value) => value instanceof FixtureReference,
  resolve: (name) => new FixtureReference(name.trim()),
};

/** Where a fixture is defined, for the message about a second definition. */
interface Origin {
  file: string;
  line?: number;
}

/**
 * The fixtures a test file can use: its own `fixtures` and those of the files it `include`s, each name once.
 * `values` are principals, resources or any other parameter value (`!fixture ann`); `events` are parts of events
 * (`actionId`, `timestamp`, `parameters`) an event takes with `use:` and completes or overrides.
 */
export class FixtureSet {
  /** `at`: where the value is written, in the file being read when it was defined. */
  readonly values = new Map<string, { value: unknown; origin: Origin; at: readonly PathSegment[] }>();
  readonly events = new Map<string, { parts: Record<string, unknown>; origin: Origin }>();
  /** Event fixtures refused where they are written: an event using one is not read, so nothing follows from it. */
  private readonly refused = new Set<string>();

  /** Reads a `fixtures` section; problems go to `shape` (the file the section is written in). */
  read(section: unknown, at: readonly PathSegment[], shape: Shape, file: string, locate: (path: readonly PathSegment[]) => Position | undefined): void {
    const record = shape.record(section, at, { optional: ['values', 'events'] });
    if (record === undefined) return;
    const origin = (path: readonly PathSegment[]): Origin => {
      const line = locate(path)?.line;
      return line === undefined ? { file } : { file, line };
    };
    const values = record.values === undefined ? {} : shape.record(record.values, [...at, 'values'], { optional: Object.keys(plain(record.values)) });
    const events = record.events === undefined ? {} : shape.record(record.events, [...at, 'events'], { optional: Object.keys(plain(record.events)) });
    for (const [name, value] of Object.entries(values ?? {})) {
      const where = [...at, 'values', name];
      if (this.isTaken(name, where, shape)) continue;
      this.values.set(name, { value, origin: origin(where), at: where });
    }
    for (const [name, value] of Object.entries(events ?? {})) {
      const where = [...at, 'events', name];
      if (this.isTaken(name, where, shape)) continue;
      const parts = shape.record(value, where, { optional: ['actionId', 'timestamp', 'parameters'] });
      if (parts === undefined) continue;
      this.events.set(name, { parts, origin: origin(where) });
    }
    // Values may name other values; events may name values. Both are resolved once, here, where they are written.
    for (const name of Object.keys(values ?? {})) this.resolveValue(name, [...at, 'values', name], shape, []);
    for (const name of Object.keys(events ?? {})) {
      const entry = this.events.get(name);
      if (entry === undefined || entry.origin.file !== file) continue;
      const where = [...at, 'events', name];
      const resolved = this.resolve(entry.parts, where, shape);
      // Checked as an event would be, with what a using event adds left open.
      const trial = resolved === undefined ? undefined : readWireEvent({ actionId: { scope: 'fixture', action: 'fixture' }, timestamp: 0, ...(resolved as object) }, where, shape);
      if (trial === undefined) {
        this.events.delete(name);
        this.refused.add(name);
      } else entry.parts = resolved as Record<string, unknown>;
    }
  }

  /**
   * `value` with each `!fixture name` replaced by that fixture's value. Undefined, with a problem at the reference
   * (did you mean…), when one names no fixture: the caller reads no further, so nothing follows from it.
   */
  resolve(value: unknown, at: readonly PathSegment[], shape: Shape): unknown {
    const before = shape.problems.length;
    const resolved = this.replace(value, at, shape, []);
    return shape.problems.length > before ? undefined : resolved;
  }

  /**
   * An event as written in a test, with `use: <event fixture>` replaced by the fixture's parts: the event's own
   * `actionId` and `timestamp` win, and its parameters are added to the fixture's, replacing those of the same name.
   */
  expandEvent(value: unknown, at: readonly PathSegment[], shape: Shape): unknown {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !('use' in value)) return value;
    const { use, ...own } = value as Record<string, unknown>;
    const name = shape.string(use, [...at, 'use'], { nonEmpty: true });
    if (name === undefined) return undefined;
    if (this.refused.has(name)) return undefined;
    const fixture = this.events.get(name);
    if (fixture === undefined) return shape.fail([...at, 'use'], unknownFixture('event', name, [...this.events.keys()], [...this.values.keys()]));
    const merged: Record<string, unknown> = { ...fixture.parts, ...own };
    if ('parameters' in fixture.parts && 'parameters' in own) merged.parameters = mergeParameters(fixture.parts.parameters, own.parameters);
    return merged;
  }

  private isTaken(name: string, where: readonly PathSegment[], shape: Shape): boolean {
    const other = this.values.get(name)?.origin ?? this.events.get(name)?.origin;
    if (other === undefined) return false;
    shape.fail(where, `the fixture \`${name}\` is already defined in ${other.file}${other.line === undefined ? '' : `:${other.line}`}; each name is defined once`);
    return true;
  }

  /**
   * A value fixture with its references resolved. `where` is the reference being resolved (the cycle is reported
   * there); the fixture's own references are located where the fixture is written. A fixture of an included file was
   * resolved when that file was read, so nothing is left in it to locate in another file.
   */
  private resolveValue(name: string, where: readonly PathSegment[], shape: Shape, resolving: readonly string[]): unknown {
    const entry = this.values.get(name);
    if (entry === undefined) return undefined;
    if (resolving.includes(name)) return shape.fail(where, `the fixture \`${name}\` refers to itself (${[...resolving, name].join(' → ')})`);
    const value = this.replace(entry.value, entry.at, shape, [...resolving, name]);
    entry.value = value;
    return value;
  }

  private replace(value: unknown, at: readonly PathSegment[], shape: Shape, resolving: readonly string[]): unknown {
    if (value instanceof FixtureReference) {
      if (value.name === '') return shape.fail(at, '`!fixture` needs the name of a value fixture');
      if (!this.values.has(value.name)) return shape.fail(at, unknownFixture('value', value.name, [...this.values.keys()], [...this.events.keys()]));
      return this.resolveValue(value.name, at, shape, resolving);
    }
    if (Array.isArray(value)) return value.map((item, index) => this.replace(item, [...at, index], shape, resolving));
    if (typeof value === 'object' && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, this.replace(item, [...at, key], shape, resolving)]));
    }
    return value;
  }
}

function unknownFixture(kind: 'value' | 'event', name: string, known: readonly string[], otherKind: readonly string[]): string {
  const closest = closestName(name, known);
  if (closest !== null) return `unknown ${kind} fixture \`${name}\`; did you mean \`${closest}\`?`;
  if (otherKind.includes(name)) {
    return kind === 'value'
      ? `\`${name}\` is an event fixture; an event takes it with \`use: ${name}\`, \`!fixture\` names value fixtures`
      : `\`${name}\` is a value fixture; \`use\` names event fixtures, a value is written \`!fixture ${name}\``;
  }
  return `unknown ${kind} fixture \`${name}\`; ${known.length === 0 ? `no ${kind} fixture is defined` : `the ${kind} fixtures are ${known.map((k) => `\`${k}\``).join(', ')}`}`;
}

/** Parameters of a fixture and of the event using it: short forms merge by name; otherwise both as wire lists, by name. */
function mergeParameters(base: unknown, own: unknown): unknown {
  if (isMapping(base) && isMapping(own)) return { ...base, ...own };
  const baseList = asWireList(base);
  const ownList = asWireList(own);
  // Anything else is not parameters; the event's own value is read, and its problem reported, as written.
  if (baseList === null || ownList === null) return own;
  const names = new Set(ownList.map((item) => (isMapping(item) ? item.name : undefined)));
  return [...baseList.filter((item) => !isMapping(item) || !names.has(item.name)), ...ownList];
}

function asWireList(parameters: unknown): unknown[] | null {
  if (Array.isArray(parameters)) return parameters;
  return isMapping(parameters) ? Object.entries(parameters).map(([name, value]) => ({ name, value: javaValue(value) })) : null;
}

const isMapping = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const plain = (value: unknown): Record<string, unknown> => (isMapping(value) ? value : {});
