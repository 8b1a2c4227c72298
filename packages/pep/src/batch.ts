import { MAX_BATCH_ITEMS, type Event } from '@custos/contracts';
import { decisionFrom, parseAnswer, readRevision, type Decision } from './decision';
import { MalformedDecisionError } from './errors';
import { isJsonObject, ownValue } from './json-value';

/**
 * Custos' own batch form, `POST /events`: `{ "events": [...] }` answered by `{ "decisions": [...] }`, one decision
 * per event in the same order, each decided as `POST /event` would decide it (docs/api.md, "Batch decisions").
 */

/** The body of `POST /events`; refuses what the pdp would refuse anyway, before anything is sent. */
export function batchBody(events: readonly Event[]): string {
  if (!Array.isArray(events)) throw new TypeError('`events` must be a list of events');
  if (events.length > MAX_BATCH_ITEMS) throw new TypeError(`\`events\` holds ${events.length} events; one request takes at most ${MAX_BATCH_ITEMS}`);
  return JSON.stringify({ events });
}

/**
 * Reads a 200 answer of `POST /events` sent `count` events. A list of another length cannot be matched to the
 * events (which decision belongs to which?), so it is malformed as a whole, like any decision in it that is.
 */
export function readDecisionBatch(text: string, revisionHeader: string | null, count: number): Decision[] {
  const body = parseAnswer(text);
  const revision = readRevision(revisionHeader);
  const decisions = isJsonObject(body) ? ownValue(body, 'decisions') : undefined;
  if (!Array.isArray(decisions)) {
    throw new MalformedDecisionError('the answer is not a list of decisions', { cause: new TypeError('`decisions` must be a list') });
  }
  if (decisions.length !== count) {
    throw new MalformedDecisionError('the answer is not a list of decisions', {
      cause: new RangeError(`${count} events were sent but ${decisions.length} decisions came back`),
    });
  }
  return decisions.map((decision: unknown, index) => decisionFrom(decision, revision, `\`decisions[${index}]\`: `));
}
