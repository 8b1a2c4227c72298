import type { DecisionRecordWire, Event } from '@custos/contracts';

/** The filters of the Decisions page, as typed (empty: not narrowed). */
export interface DecisionFilters {
  solution: string;
  action: string;
  outcome: '' | 'allow' | 'inhibit';
  decisionId: string;
  /** `datetime-local` text, in the browser's zone. */
  from: string;
  to: string;
}

export const NO_FILTERS: DecisionFilters = { solution: '', action: '', outcome: '', decisionId: '', from: '', to: '' };

/** The query of pap's `GET /ws/decisions` for the filters: only those given, times as RFC 3339 in UTC. */
export function decisionQuery(filters: DecisionFilters, limit = 100): string {
  const query = new URLSearchParams();
  const add = (name: string, value: string) => {
    if (value.trim() !== '') query.set(name, value.trim());
  };
  add('solution', filters.solution);
  add('action', filters.action);
  add('outcome', filters.outcome);
  add('decisionId', filters.decisionId);
  for (const name of ['from', 'to'] as const) {
    const text = filters[name].trim();
    if (text === '') continue;
    const time = new Date(text);
    // An unreadable time goes as typed: pap's 400 says what is wrong with it.
    query.set(name, Number.isNaN(time.getTime()) ? text : time.toISOString());
  }
  query.set('limit', String(limit));
  return query.toString();
}

/**
 * The event a record was decided on, when the record carries all of it (its solution lists every parameter in
 * clear: `complete`), for "explain this event again"; undefined otherwise.
 */
export function eventOfRecord(record: DecisionRecordWire): Event | undefined {
  if (record.complete !== true || record.parameters === undefined || record.eventTimestamp === undefined) return undefined;
  const parameters = [];
  for (const parameter of record.parameters) {
    if (parameter.value === undefined) return undefined;
    parameters.push({ name: parameter.name, value: parameter.value });
  }
  return { actionId: { urn: record.action }, timestamp: record.eventTimestamp, parameters };
}

/** How the decision came about, in words: a policy decided, or whose default did. */
export function howDecided(record: DecisionRecordWire): string {
  if (record.decided) return `decided by ${record.matchedPolicies.length === 0 ? 'a policy' : record.matchedPolicies.join(', ')}`;
  return record.defaultSource === 'solution' ? "the solution's default decided" : "the pdp's default decided";
}
