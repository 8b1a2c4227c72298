import type { Event, EventParameter, Modifier } from '@custos/contracts';
import type { Decision } from './decision';
import { JsonPathError, ModifierError, UnsupportedModifierError, type ModifierContext } from './errors';
import { parseJsonPath, select, type Location, type Segment } from './json-path';
import { setOwn } from './json-value';
import { Arguments } from './modifiers/arguments';
import { REMOVE, type Transform } from './modifiers/method';
import { MODIFIER_METHODS } from './modifiers/registry';
import { decodeWithOrigin, encodeParameterValue } from './parameter-value';

/**
 * Applies `modifiers` to `event` in their order, changing `event` in place (callers pass a copy). Each modifier
 * sees the result of the ones before it. Anything that cannot be applied throws, so nothing is released half
 * modified: an unknown method, a path outside the supported subset, a value of the wrong kind, bad arguments.
 * A path that selects nothing, or a parameter the event does not carry, changes nothing (there is nothing there
 * to protect).
 */
export function applyModifiers(event: Event, modifiers: readonly Modifier[], decision?: Decision): void {
  const prepared = modifiers.map((modifier, index) => prepare(modifier, { decision, modifier, index }));
  for (const step of prepared) applyOne(event, step);
}

interface PreparedModifier {
  context: ModifierContext & { modifier: Modifier };
  method: string;
  segments: Segment[];
  transform: Transform;
}

/** Every modifier is checked before the first is applied: a bad fifth one fails before any work is done. */
function prepare(modifier: Modifier, context: ModifierContext & { modifier: Modifier }): PreparedModifier {
  const engine = modifier.engine[0];
  const method = engine.method;
  const definition = MODIFIER_METHODS.get(method);
  if (definition === undefined) {
    const known = [...MODIFIER_METHODS.keys()].join(', ');
    throw new UnsupportedModifierError(method, context, { cause: new RangeError(`\`${method}\` is none of ${known}`) });
  }
  let transform: Transform;
  try {
    transform = definition.prepare(new Arguments(method, engine.parameters, definition.parameters));
  } catch (error) {
    throw new ModifierError(method, context, { cause: error });
  }
  let segments: Segment[];
  try {
    segments = parseJsonPath(modifier.expression);
  } catch (error) {
    throw new JsonPathError(modifier.expression, context, { cause: error });
  }
  return { context, method, segments, transform };
}

function applyOne(event: Event, step: PreparedModifier): void {
  const { modifier } = step.context;
  // An event without parameters (the pdp accepts one) has nothing to modify.
  if (!Array.isArray(event.parameters)) return;
  const position = event.parameters.findIndex((parameter) => parameter.name === modifier.name);
  const parameter = event.parameters[position];
  if (parameter === undefined) return;
  const before = decodeWithOrigin(parameter.value);
  const locations = unique(select(before.value, step.segments));
  if (locations.length === 0) return;

  let root = before.value;
  try {
    const removals: Location[] = [];
    for (const location of locations) {
      const current = valueAt(location, root);
      const next = step.transform(current, location.path);
      if (next === REMOVE) removals.push(location);
      else if (location.kind === 'root') root = next;
      else write(location, next);
    }
    if (removals.some((location) => location.kind === 'root')) {
      event.parameters.splice(position, 1);
      return;
    }
    remove(removals);
  } catch (error) {
    throw new ModifierError(step.method, step.context, { cause: error });
  }
  const changed: EventParameter = { name: parameter.name, value: encodeParameterValue(parameter.value, before, root) };
  event.parameters[position] = changed;
}

/** A union may name one place twice (`['a','a']`); it is modified once. */
function unique(locations: Location[]): Location[] {
  const seen = new Map<object, Set<string | number>>();
  return locations.filter((location) => {
    if (location.kind === 'root') return true;
    const keys = seen.get(location.parent) ?? new Set<string | number>();
    seen.set(location.parent, keys);
    const key = location.kind === 'member' ? location.key : location.index;
    if (keys.has(key)) return false;
    keys.add(key);
    return true;
  });
}

/** The value now at a location (an earlier place of the same modifier may have changed it). */
function valueAt(location: Location, root: unknown): unknown {
  if (location.kind === 'root') return root;
  if (location.kind === 'element') return location.parent[location.index];
  return Object.prototype.hasOwnProperty.call(location.parent, location.key) ? location.parent[location.key] : undefined;
}

function write(location: Exclude<Location, { kind: 'root' }>, value: unknown): void {
  if (location.kind === 'element') location.parent[location.index] = value;
  else setOwn(location.parent, location.key, value);
}

/** Members are deleted; elements are spliced out from the highest index down, so indexes stay valid. */
function remove(locations: readonly Location[]): void {
  const elements = new Map<unknown[], number[]>();
  for (const location of locations) {
    if (location.kind === 'member') delete location.parent[location.key];
    else if (location.kind === 'element') elements.set(location.parent, [...(elements.get(location.parent) ?? []), location.index]);
  }
  for (const [list, indexes] of elements) for (const index of indexes.sort((a, b) => b - a)) list.splice(index, 1);
}
