import { MAX_EVENT_PARAMETERS, WorkBudget, actionOf, parseEvent, toEngineEvent, type Event, type EventParameter } from '@custos/contracts';
import type { EngineEvent } from '@custos/policy-engine';
import type { Shape } from './shape';
import type { PathSegment } from './yaml-source';

const SCOPE = /^[a-z0-9._-]+$/;
const TOKEN = /^[A-Za-z0-9._-]+$/;
const ACTION_URN = /^urn:action:[a-z0-9._-]+:[A-Za-z0-9._-]+$/;

/**
 * An event exactly as the body of `POST /event` (api.md §3): the same rules the pdp's schema and parser apply, so a
 * test event the runner accepts is one the pdp accepts too. Undefined (with problems reported) otherwise.
 */
export function readWireEvent(value: unknown, path: readonly PathSegment[], shape: Shape): Event | undefined {
  const before = shape.problems.length;
  const record = shape.record(value, path, { required: ['actionId', 'timestamp'], optional: ['parameters'] });
  if (record === undefined) return undefined;
  const actionId = readActionId(record.actionId, [...path, 'actionId'], shape);
  const timestamp = shape.integer(record.timestamp, [...path, 'timestamp']);
  const parameters: EventParameter[] = [];
  if (record.parameters !== undefined) {
    const list = shape.list(record.parameters, [...path, 'parameters']);
    if (list !== undefined && list.length > MAX_EVENT_PARAMETERS) shape.fail([...path, 'parameters'], `has more than ${MAX_EVENT_PARAMETERS} parameters`);
    list?.forEach((item, index) => {
      const parameter = readParameter(item, [...path, 'parameters', index], shape);
      if (parameter !== undefined) parameters.push(parameter);
    });
  }
  if (actionId === undefined || timestamp === undefined || shape.problems.length > before) return undefined;
  const event: Event = { actionId, timestamp, parameters };
  // The shape is the test file's (read above, with YAML locations); the rest is the pdp's own event parser, so names,
  // action and nesting are checked exactly as POST /event checks them.
  const parsed = parseEvent(event, { shape: () => [], budget: new WorkBudget() });
  if (!parsed.ok) for (const problem of parsed.errors) shape.fail([...path, ...segments(problem.path)], problem.message);
  return shape.problems.length > before ? undefined : event;
}

/** The engine's view of a checked event. */
export function engineEventOf(event: Event): EngineEvent {
  const action = actionOf(event.actionId);
  // Checked events always name an action; the fallback only keeps the types honest.
  return toEngineEvent(event, action?.urn ?? '');
}

function readActionId(value: unknown, path: readonly PathSegment[], shape: Shape): Event['actionId'] | undefined {
  if (typeof value === 'object' && value !== null && 'urn' in value) {
    const record = shape.record(value, path, { required: ['urn'] });
    const urn = shape.string(record?.urn, [...path, 'urn'], { pattern: ACTION_URN, hint: 'is not an action; expected `urn:action:<solution>:<name>`' });
    return urn === undefined ? undefined : { urn };
  }
  const record = shape.record(value, path, { required: ['scope', 'action'] });
  if (record === undefined) return undefined;
  const scope = shape.string(record.scope, [...path, 'scope'], { pattern: SCOPE, hint: 'is not a solution: use lower-case letters, digits, `.`, `_` and `-`' });
  const action = shape.string(record.action, [...path, 'action'], { pattern: TOKEN, hint: 'is not an action name: use letters, digits, `.`, `_` and `-`' });
  return scope === undefined || action === undefined ? undefined : { scope, action };
}

function readParameter(value: unknown, path: readonly PathSegment[], shape: Shape): EventParameter | undefined {
  const record = shape.record(value, path, { required: ['name', 'value'] });
  if (record === undefined) return undefined;
  const name = shape.string(record.name, [...path, 'name'], { nonEmpty: true });
  const typed = shape.record(record.value, [...path, 'value'], { required: ['value'], optional: ['type', 'isComplex'] });
  if (typed === undefined || name === undefined) return undefined;
  const type = typed.type === undefined ? 'java.lang.Object' : shape.string(typed.type, [...path, 'value', 'type']);
  const isComplex = typed.isComplex === undefined ? false : shape.boolean(typed.isComplex, [...path, 'value', 'isComplex']);
  if (type === undefined || isComplex === undefined) return undefined;
  return { name, value: { value: typed.value, type, isComplex } };
}

/** `parameters[2].value.value` → ['parameters', 2, 'value', 'value'] */
function segments(path: string | undefined): PathSegment[] {
  if (path === undefined) return [];
  const found: PathSegment[] = [];
  for (const match of path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) found.push(match[2] !== undefined ? Number(match[2]) : (match[1] ?? ''));
  return found;
}
