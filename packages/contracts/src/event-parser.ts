import { MAX_BATCH_ITEMS } from './batch';
import type { AcceptedEvent } from './event';
import { actionOf, duplicateParameters, MAX_VALUE_DEPTH, parameterValue, type CodecEngineEvent, type EventAction } from './event-codec';
import type { ProblemError } from './problem';
import { outlineJson } from './json-outline';
import { MAX_EVENT_BYTES, MAX_REQUEST_VALUES, walkJson, type WorkBudget } from './work-budget';

/**
 * The one check of an event as a decision route receives it (POST /event, each item of POST /events; the AuthZEN
 * parser builds on the same pieces): size → schema → unique parameter names → action → nesting depth of every
 * decoded parameter value, every walk charged to the request's WorkBudget. Pure: the schema check is passed in
 * (the services compile `eventSchema` with ajv; contracts has no dependencies).
 */

/** Every way the value breaks the schema, located (`parameters[1].name`); empty when it matches. */
export type ShapeCheck = (value: unknown) => readonly ProblemError[];

/** An event ready to decide: the engine's view of it and its action. */
export interface ParsedEvent {
  event: CodecEngineEvent;
  action: EventAction;
}

/** Why a request is refused: 413 for a bound (size, items, budget), 400 for everything else. */
export interface Refusal {
  status: 400 | 413;
  detail: string;
  errors: ProblemError[];
}

export type Parsed<T> = { ok: true; value: T } | ({ ok: false } & Refusal);

export const refused = (status: 400 | 413, detail: string, errors: ProblemError[]): { ok: false } & Refusal => ({ ok: false, status, detail, errors });

/** Errors located inside one item: `parameters[1].name` of item 3 is `events[3].parameters[1].name`. */
export function locatedWithin(prefix: string, errors: readonly ProblemError[]): ProblemError[] {
  if (prefix === '') return [...errors];
  return errors.map((error) => ({ ...error, path: error.path === undefined || error.path === '(body)' ? prefix : `${prefix}.${error.path}` }));
}

const join = (at: string, path: string) => (at === '' ? path : `${at}.${path}`);

/** The request ran out of its budget: 413, located where it ran out. */
export function budgetSpent(at: string): { ok: false } & Refusal {
  return refused(413, `the request holds more than ${MAX_REQUEST_VALUES} json values; send fewer or smaller items`, [
    { path: at === '' ? '(body)' : at, message: `the budget of ${MAX_REQUEST_VALUES} values ran out here` },
  ]);
}

/** One item larger than a single call may be (api.md §5). */
export const itemTooLarge = (at: string, what: string): ProblemError => ({
  path: at,
  message: `is larger than ${MAX_EVENT_BYTES} bytes, the limit of ${what}`,
});

/** The nesting of an event around a parameter's value: event → parameters → parameter → typed value. */
const VALUE_NESTING_IN_EVENT = 4;

export interface EventParseOptions {
  shape: ShapeCheck;
  budget: WorkBudget;
  /**
   * Measure the event against MAX_EVENT_BYTES first: batch items. The body of POST /event was bounded when it was
   * read, so it is not walked for that.
   */
  measure?: boolean;
  /** Where the event sits in the request (`events[3]`); every error path starts with it. */
  at?: string;
}

/** One event of a decision request, checked; the refusal says what was wrong and where. */
export function parseEvent(value: unknown, options: EventParseOptions): Parsed<ParsedEvent> {
  const { budget } = options;
  const at = options.at ?? '';
  // Whether the values as sent are known to be shallow enough, so only decoded complex text needs its own walk.
  let sentShallow = false;
  if (options.measure === true) {
    const size = walkJson(value, { budget, maxBytes: MAX_EVENT_BYTES });
    if (size.exhausted) return budgetSpent(at);
    sentShallow = size.nesting <= VALUE_NESTING_IN_EVENT + MAX_VALUE_DEPTH;
    if (size.tooLarge) return refused(413, `the event is larger than ${MAX_EVENT_BYTES} bytes`, [itemTooLarge(at === '' ? '(body)' : at, 'one event')]);
  }
  const shapeErrors = options.shape(value);
  if (shapeErrors.length > 0) return refused(400, 'the event does not match the schema', locatedWithin(at, shapeErrors));
  const event = value as AcceptedEvent;
  const duplicates = duplicateParameters(event.parameters);
  if (duplicates.length > 0) return refused(400, 'parameter names must be unique', locatedWithin(at, duplicates));
  const action = actionOf(event.actionId);
  if (!action) return refused(400, 'the event names no valid action', [{ path: join(at, 'actionId'), message: 'names no valid action' }]);

  // Parameter names are unique here, so the map holds them in the order of the body.
  const parameters = new Map<string, unknown>();
  const tooDeep: ProblemError[] = [];
  (event.parameters ?? []).forEach((parameter, index) => {
    const decoded = parameterValue(parameter.value);
    if (sentShallow && decoded === parameter.value.value) return void parameters.set(parameter.name, decoded);
    const walked = walkJson(decoded, { budget, maxDepth: MAX_VALUE_DEPTH });
    if (walked.tooDeep) tooDeep.push({ path: join(at, `parameters[${index}].value.value`), message: `is nested deeper than ${MAX_VALUE_DEPTH} levels` });
    parameters.set(parameter.name, decoded);
  });
  if (budget.exhausted) return budgetSpent(at);
  if (tooDeep.length > 0) return refused(400, 'a parameter value is nested too deeply', tooDeep);
  return { ok: true, value: { event: { action: action.urn, timestamp: event.timestamp, parameters }, action } };
}

/** More items than a batch may carry: 413 at `field`, before anything else about them is looked at. */
export function tooManyItems(field: string, count: number): { ok: false } & Refusal {
  return refused(413, `a batch carries at most ${MAX_BATCH_ITEMS} items, got ${count}`, [{ path: field, message: `has more than ${MAX_BATCH_ITEMS} items` }]);
}

/**
 * The events of a `POST /events` body (`{events: [Event…]}`), every one checked as POST /event checks its event and
 * measured against its limit, each problem located at `events[i].…`. Every item too large is a 413 (nothing else is
 * looked at then); otherwise all problems of all events come in one 400.
 */
export function parseEventBatch(body: unknown, options: { shape: ShapeCheck; budget: WorkBudget }): Parsed<ParsedEvent[]> {
  const items = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { events?: unknown }).events : undefined;
  if (!Array.isArray(items)) {
    const message = items === undefined ? 'is required' : 'must be of type array';
    const errors = typeof body === 'object' && body !== null && !Array.isArray(body) ? [{ path: 'events', message }] : [{ path: '(body)', message: 'must be of type object' }];
    return refused(400, 'the batch does not match the schema', errors);
  }
  if (items.length > MAX_BATCH_ITEMS) return tooManyItems('events', items.length);
  const large: ProblemError[] = [];
  const invalid: ProblemError[] = [];
  const events: ParsedEvent[] = [];
  for (let index = 0; index < items.length; index++) {
    const parsed = parseEvent(items[index], { ...options, measure: true, at: `events[${index}]` });
    if (parsed.ok) events.push(parsed.value);
    else if (options.budget.exhausted) return budgetSpent(`events[${index}]`);
    else (parsed.status === 413 ? large : invalid).push(...parsed.errors);
  }
  if (large.length > 0) return refused(413, 'an event of the batch is larger than one event may be; nothing was decided', large);
  if (invalid.length > 0) return refused(400, 'an event of the batch is invalid; nothing was decided', invalid);
  return { ok: true, value: events };
}

/**
 * A `POST /events` body larger than one event may be, refused before it is parsed when it holds more values than a
 * request may or an event larger than 1 MiB as sent (what `POST /event` would refuse it for). Undefined: parse it
 * (it may still be refused by parseEventBatch, which checks the parsed events).
 */
export function prescanEventBatch(text: string): Refusal | undefined {
  if (text.length <= MAX_EVENT_BYTES) return undefined;
  const outline = outlineJson(text, MAX_REQUEST_VALUES);
  if (outline === undefined) return undefined;
  if (outline === 'budget') return budgetSpent('');
  const large = (outline.items.get('events') ?? []).flatMap((item, index) => (item.bytes > MAX_EVENT_BYTES ? [itemTooLarge(`events[${index}]`, 'one event')] : []));
  return large.length > 0 ? refused(413, 'an event of the batch is larger than one event may be; nothing was decided', large) : undefined;
}
