import { Type, type Static } from '@sinclair/typebox';

/**
 * Decision records (issue 24): what each pdp publishes about every decision to a JetStream stream, besides its
 * decision log line, and what pap's `GET /ws/decisions` reads back. A record carries the fields of the log line and,
 * only where the solution opted in (`recordParameters` of its settings), some of the event's parameters: those listed
 * with their values, the others as keyed hashes when asked for. One message per record, on the subject
 * `<prefix>.decisions.<solution token>.<uuid of the decision id>`, so pap finds one decision, or one solution's,
 * by subject.
 */

/** The stream and subjects of decision records under a NATS prefix. */
export interface DecisionRecordSubjects {
  stream: string;
  /** Every record: `<prefix>.decisions.>`. */
  all: string;
  /** The subject of one record. */
  subjectOf(solution: string, decisionId: string): string;
  /** The records of one solution (`<prefix>.decisions.<solution token>.*`). */
  ofSolution(solution: string): string;
  /** The record of one decision id, whatever its solution. */
  ofDecision(decisionId: string): string;
}

/** A solution name as one subject token: solution names may hold `.`, which NATS reads as a separator; `~` never occurs in them. */
const solutionToken = (solution: string): string => solution.replace(/\./g, '~');

/** The uuid part of `urn:decision:<uuid>` (the whole text when it has no such prefix), as a subject token. */
const decisionToken = (decisionId: string): string => decisionId.replace(/^urn:decision:/, '').replace(/[^A-Za-z0-9_-]/g, '_');

export function decisionRecordSubjects(prefix: string): DecisionRecordSubjects {
  const base = `${prefix}.decisions`;
  return {
    stream: `${prefix.replace(/[^A-Za-z0-9_-]/g, '_')}_decision_records`,
    all: `${base}.>`,
    subjectOf: (solution, decisionId) => `${base}.${solutionToken(solution)}.${decisionToken(decisionId)}`,
    ofSolution: (solution) => `${base}.${solutionToken(solution)}.*`,
    ofDecision: (decisionId) => `${base}.*.${decisionToken(decisionId)}`,
  };
}

/** A parameter a record carries: its value as sent (a listed parameter) or its keyed hash. */
export const recordedParameterSchema = Type.Object({
  name: Type.String(),
  value: Type.Optional(
    Type.Object(
      { value: Type.Unknown(), type: Type.String(), isComplex: Type.Boolean() },
      { description: 'the value as the event carried it, for a parameter the solution lists in `recordParameters.clear`' },
    ),
  ),
  hash: Type.Optional(Type.String({ description: 'HMAC-SHA256 of the value (the history key), for the other parameters when `recordParameters.hashed`' })),
});
export type RecordedParameter = Static<typeof recordedParameterSchema>;

export const decisionRecordSchema = Type.Object({
  decisionId: Type.String({ description: 'the decision id, `urn:decision:<uuid>`' }),
  requestId: Type.String(),
  clientId: Type.String({ description: "the token's client id (a timer's id for a timer's decisions)" }),
  replicaId: Type.String({ description: 'the pdp replica that decided' }),
  time: Type.String({ format: 'date-time', description: 'when the decision was answered' }),
  action: Type.String(),
  solution: Type.String(),
  revision: Type.Integer(),
  explain: Type.Boolean({ description: 'an explanation (`/event/explain`), not a decision' }),
  matchedPolicies: Type.Array(Type.String()),
  allowed: Type.Boolean(),
  decided: Type.Boolean({ description: 'whether a mechanism decided (false: the default did)' }),
  defaultSource: Type.Optional(Type.String({ description: 'whose default decided: `solution` or `pdp`' })),
  modifiers: Type.Integer({ description: 'how many modifiers the answer carried' }),
  delayMs: Type.Number(),
  latencyUs: Type.Integer(),
  errors: Type.Array(Type.Object({ policyId: Type.String(), mechanism: Type.String(), message: Type.String() })),
  plannedExecutions: Type.Integer(),
  executions: Type.Array(Type.Object({ policyId: Type.String(), action: Type.String() })),
  eventTimestamp: Type.Optional(Type.Number({ description: "the event's timestamp, with recorded parameters" })),
  parameters: Type.Optional(Type.Array(recordedParameterSchema, { description: "the parameters the solution's `recordParameters` let through" })),
  complete: Type.Optional(
    Type.Boolean({ description: 'every parameter of the event is carried with its value: the event can be explained again' }),
  ),
});
export type DecisionRecordWire = Static<typeof decisionRecordSchema>;

export const DECISION_OUTCOMES = ['allow', 'inhibit'] as const;
export type DecisionRecordOutcome = (typeof DECISION_OUTCOMES)[number];

/** `GET /ws/decisions`: the records found, oldest first, and whether the search stopped before the end of what it may read. */
export const decisionRecordsAnswerSchema = Type.Object({
  records: Type.Array(decisionRecordSchema, { description: 'oldest first; the newest `limit` of those that match' }),
  truncated: Type.Boolean({ description: 'more records matched than `limit`, or the search read as many records as it may and stopped' }),
});
export type DecisionRecordsAnswer = Static<typeof decisionRecordsAnswerSchema>;

/**
 * A solution's `recordParameters` setting: which parameters its decision records carry. Without it they carry none.
 * `clear`: names whose values are recorded as sent (`*` names every parameter); `hashed`: every other parameter is
 * recorded as a keyed hash of its value.
 */
export const recordParametersSchema = Type.Object(
  {
    clear: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
        maxItems: 64,
        uniqueItems: true,
        description: 'parameter names recorded with their values; `*` records every parameter',
      }),
    ),
    hashed: Type.Optional(Type.Boolean({ description: 'record the other parameters as keyed hashes of their values' })),
  },
  { additionalProperties: false, description: 'which event parameters decision records carry; absent: none' },
);
export type RecordParameters = Static<typeof recordParametersSchema>;

/** A `recordParameters` value off the wire, or undefined when it is not one. */
export function wireRecordParameters(value: unknown): RecordParameters | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { clear, hashed } = value as Record<string, unknown>;
  const result: RecordParameters = {};
  if (clear !== undefined) {
    if (!Array.isArray(clear) || !clear.every((name) => typeof name === 'string')) return undefined;
    result.clear = clear as string[];
  }
  if (hashed !== undefined) {
    if (typeof hashed !== 'boolean') return undefined;
    result.hashed = hashed;
  }
  return result;
}
