import { MAX_BATCH_ITEMS } from './batch';
import type { AccessEvaluationsRequest, AuthZenEvaluation, AuthZenOptions } from './authzen';
import { evaluationsOf, mapEvaluation, type CompleteEvaluation } from './authzen-mapping';
import { toEngineEvent, MAX_VALUE_DEPTH } from './event-codec';
import { budgetSpent, refused, tooManyItems, type ParsedEvent, type Parsed, type Refusal, type ShapeCheck } from './event-parser';
import { outlineJson } from './json-outline';
import type { ProblemError } from './problem';
import { MAX_EVENT_BYTES, MAX_REQUEST_VALUES, walkJson, type WorkBudget } from './work-budget';

/**
 * The one check of an AuthZEN request (`POST /access/v1/evaluation` and `…/evaluations`), the AuthZEN form of
 * parseEvent: item count → schema → size and nesting of every entity → defaults applied → action names mapped. Each
 * distinct object is walked once: a top-level default is measured and checked before it is shared by the entries
 * that take it, so a wide default costs its size once, not once per evaluation. An evaluation, with the defaults it
 * takes, may be as large as a single evaluation (1 MiB), else 413 at `evaluations[i]`.
 */

const ENTITIES = ['subject', 'action', 'resource', 'context'] as const;
type EntityName = (typeof ENTITIES)[number];

/** What one AuthZEN request asks, checked. */
export interface ParsedAuthZen {
  /** Answered with one decision (`/evaluation`, or `/evaluations` without entries). */
  single: boolean;
  events: ParsedEvent[];
  options: AuthZenOptions | undefined;
}

export interface AuthZenParseOptions {
  /** `accessEvaluationRequestSchema` for `/evaluation`, `accessEvaluationsRequestSchema` for `/evaluations`. */
  shape: ShapeCheck;
  /** `/evaluation`: one evaluation, its body bounded when it was read. */
  single: boolean;
  /** The solutions of the caller's token (`*` = all), for bare action names. */
  solutions: readonly string[];
  /** The events' time: when the pdp received the request. */
  timestamp: number;
  budget: WorkBudget;
}

interface Checked {
  bytes: number;
  errors: ProblemError[];
  tooLarge: boolean;
}

/** One entity walked once: its compact size (when measured) and whether it nests too deeply. */
function checkEntity(value: unknown, path: string, measure: boolean, budget: WorkBudget): Checked | undefined {
  const walked = walkJson(value, { budget, maxDepth: MAX_VALUE_DEPTH, ...(measure ? { maxBytes: MAX_EVENT_BYTES } : {}) });
  if (walked.exhausted) return undefined;
  if (walked.tooLarge) return { bytes: walked.bytes, errors: [{ path, message: `is larger than ${MAX_EVENT_BYTES} bytes, the limit of one evaluation` }], tooLarge: true };
  if (walked.tooDeep) return { bytes: walked.bytes, errors: [{ path, message: `is nested deeper than ${MAX_VALUE_DEPTH} levels` }], tooLarge: false };
  return { bytes: walked.bytes, errors: [], tooLarge: false };
}

export function parseAuthZenRequest(body: unknown, options: AuthZenParseOptions): Parsed<ParsedAuthZen> {
  const { budget } = options;
  const entries = typeof body === 'object' && body !== null ? (body as { evaluations?: unknown }).evaluations : undefined;
  if (!options.single && Array.isArray(entries) && entries.length > MAX_BATCH_ITEMS) return tooManyItems('evaluations', entries.length);
  const shapeErrors = options.shape(body);
  if (shapeErrors.length > 0) {
    const what = options.single ? 'the access evaluation request' : 'the access evaluations request';
    return refused(400, `${what} does not match the schema`, [...shapeErrors]);
  }
  const request = body as AccessEvaluationsRequest;
  const measure = !options.single;
  const large: ProblemError[] = [];
  const invalid: ProblemError[] = [];

  // The defaults first, once each.
  const defaults = new Map<EntityName, number>();
  for (const name of ENTITIES) {
    if (request[name] === undefined) continue;
    const checked = checkEntity(request[name], name, measure, budget);
    if (checked === undefined) return budgetSpent(name);
    defaults.set(name, checked.bytes);
    (checked.tooLarge ? large : invalid).push(...checked.errors);
  }
  // A default too large is reported once, at its own path, not again at every entry that takes it.
  const defaultTooLarge = large.length > 0;
  // Then each entry's own entities, and its size with the defaults it takes.
  const own: AuthZenEvaluation[] = options.single ? [] : (request.evaluations ?? []);
  own.forEach((entry, index) => {
    let bytes = 2;
    for (const name of ENTITIES) {
      if (entry[name] === undefined) {
        bytes += (defaults.get(name) ?? 0) + name.length + 4;
        continue;
      }
      const checked = checkEntity(entry[name], `evaluations[${index}].${name}`, measure, budget);
      // The budget ran out: the request is refused below, nothing more to look at here.
      if (checked === undefined) return;
      bytes += checked.bytes + name.length + 4;
      (checked.tooLarge ? large : invalid).push(...checked.errors);
    }
    if (!defaultTooLarge && bytes > MAX_EVENT_BYTES && !large.some((error) => error.path?.startsWith(`evaluations[${index}].`))) {
      large.push({ path: `evaluations[${index}]`, message: `is larger than ${MAX_EVENT_BYTES} bytes with the defaults it takes, the limit of one evaluation` });
    }
  });
  if (budget.exhausted) return budgetSpent('evaluations');
  if (large.length > 0) return refused(413, 'an evaluation is larger than a single evaluation may be; nothing was decided', large);

  // `/evaluation` has no entries: a field of that name is one of the unknown fields it ignores (§10.1.1).
  const { subject, action, resource, context } = request;
  const expanded = evaluationsOf(options.single ? { subject, action, resource, context } : request);
  if (!expanded.ok) return refused(400, 'an evaluation lacks a subject, action or resource', expanded.errors);
  const single = options.single || expanded.value.single;
  const events: ParsedEvent[] = [];
  expanded.value.evaluations.forEach((evaluation: CompleteEvaluation, index) => {
    const mapped = mapEvaluation(evaluation, options.solutions, options.timestamp, single ? '' : `evaluations[${index}].`);
    if (!mapped.ok) invalid.push(...mapped.errors);
    else events.push({ event: toEngineEvent(mapped.value.event, mapped.value.action.urn), action: mapped.value.action });
  });
  if (invalid.length > 0) return refused(400, 'an evaluation cannot be mapped onto an event; nothing was decided', invalid);
  return { ok: true, value: { single, events, options: request.options } };
}

/**
 * A `POST /access/v1/evaluations` body larger than one evaluation may be, refused before it is parsed when it holds
 * more values than a request may, a default or an entry's entity larger than 1 MiB as sent, or an entry larger than
 * that with the defaults it takes (as parseAuthZenRequest would find after parsing, located the same way).
 */
export function prescanAuthZen(text: string): Refusal | undefined {
  if (text.length <= MAX_EVENT_BYTES) return undefined;
  const outline = outlineJson(text, MAX_REQUEST_VALUES);
  if (outline === undefined) return undefined;
  if (outline === 'budget') return budgetSpent('');
  const large: ProblemError[] = [];
  const tooLarge = (path: string) => ({ path, message: `is larger than ${MAX_EVENT_BYTES} bytes, the limit of one evaluation` });
  for (const name of ENTITIES) if ((outline.members.get(name) ?? 0) > MAX_EVENT_BYTES) large.push(tooLarge(name));
  const defaultTooLarge = large.length > 0;
  (outline.items.get('evaluations') ?? []).forEach((item, index) => {
    let bytes = item.bytes;
    let own = false;
    for (const name of ENTITIES) {
      const size = item.members.get(name);
      if (size === undefined) bytes += outline.members.get(name) ?? 0;
      else if (size > MAX_EVENT_BYTES) {
        large.push(tooLarge(`evaluations[${index}].${name}`));
        own = true;
      }
    }
    if (!own && !defaultTooLarge && bytes > MAX_EVENT_BYTES) {
      large.push({ path: `evaluations[${index}]`, message: `is larger than ${MAX_EVENT_BYTES} bytes with the defaults it takes, the limit of one evaluation` });
    }
  });
  return large.length > 0 ? refused(413, 'an evaluation is larger than a single evaluation may be; nothing was decided', large) : undefined;
}
