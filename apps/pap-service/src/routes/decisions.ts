import type { Response } from 'express';
import { Type } from '@sinclair/typebox';
import {
  DECISION_OUTCOMES,
  ERROR_CODES,
  SCOPES,
  decisionRecordSchema,
  decisionRecordsAnswerSchema,
  solutionNameSchema,
  type DecisionRecordOutcome,
} from '@custos/contracts';
import { foreignSolution, jsonResponse, principalOf, problems } from '@custos/service-kit';
import { RecordsUnavailable, type DecisionQuery, type DecisionRecordReader } from '../decision-records/reader';
import { solutionFilterOf } from '../store/solutions';
import { papRoute } from './context';
import { common, problem } from './responses';

/** The answer's default and greatest number of records. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

const DECISION_ID_PATTERN = '^urn:decision:[A-Za-z0-9_-]{1,64}$';

/** A time of `from` or `to`: an RFC 3339 date-time, or milliseconds since the epoch. */
const timeParam = (name: string, description: string) => ({
  schema: Type.String({ minLength: 1, maxLength: 40 }),
  description,
  parse: (text: string): number => {
    const time = /^\d{1,15}$/.test(text) ? Number(text) : Date.parse(text);
    if (Number.isNaN(time)) {
      throw problems.badRequest(ERROR_CODES.invalidRequest, `\`${text}\` is not a time`, [
        { path: name, message: 'must be an RFC 3339 date-time or milliseconds since the epoch' },
      ]);
    }
    return time;
  },
});

const records = (reader: DecisionRecordReader | undefined): DecisionRecordReader => {
  if (reader === undefined) throw problems.serviceUnavailable(ERROR_CODES.serviceUnavailable, 'decision records are not available: this pap has no NATS');
  return reader;
};

/** NATS out of reach (or slow to answer) is a 503 with a retry, not a failed request. */
async function reading<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof RecordsUnavailable || (error as { code?: unknown }).code === 'TIMEOUT' || (error as { code?: unknown }).code === 'CONNECTION_CLOSED') {
      throw problems.serviceUnavailable(ERROR_CODES.serviceUnavailable, 'the stream of decision records cannot be read right now', 5);
    }
    throw error;
  }
}

const unavailable = problem('`service_unavailable`: NATS, which holds the decision records, cannot be reached right now', {
  'Retry-After': { $ref: '#/components/headers/RetryAfter' },
});

/**
 * `GET /ws/decisions` (scope `solution:admin`): the decision records of the caller's solutions from the stream the
 * pdps publish them to, narrowed by the query, the newest `limit` of them, oldest first.
 */
export const searchDecisions = papRoute({
  method: 'get',
  path: '/ws/decisions',
  summary: 'search decision records',
  description:
    'Decision records (what each decision log line says, and the parameters a solution opted into with its ' +
    '`recordParameters` setting) as the pdps published them, for the solutions of the token. Each query parameter ' +
    'narrows the search; the answer holds the newest `limit` matches, oldest first, and `truncated` says whether there ' +
    'were more. Records stay as long as the stream keeps them (`PDP_DECISION_RECORDS_MAX_AGE_S`, `…_MAX_BYTES`).',
  scope: SCOPES.solutionAdmin,
  query: {
    solution: {
      schema: solutionNameSchema,
      description: "the decisions of this solution (403 when the token does not cover it)",
      parse: (text: string, res: Response): string => {
        if (!principalOf(res).mayAccess(text)) throw foreignSolution(SCOPES.solutionAdmin);
        return text;
      },
    },
    action: { schema: Type.String({ minLength: 1, maxLength: 512 }), description: 'the action URN, e.g. `urn:action:acme:read`' },
    outcome: { schema: Type.Union(DECISION_OUTCOMES.map((value) => Type.Literal(value))), description: '`allow` or `inhibit`' },
    decisionId: { schema: Type.String({ pattern: DECISION_ID_PATTERN }), description: 'one decision id, `urn:decision:<uuid>`' },
    from: timeParam('from', 'decisions answered at or after this time (RFC 3339, or ms since the epoch)'),
    to: timeParam('to', 'decisions answered at or before this time'),
    limit: {
      schema: Type.Integer({ minimum: 1, maximum: MAX_LIMIT }),
      description: `at most this many records (default ${DEFAULT_LIMIT}, at most ${MAX_LIMIT})`,
      normalize: (text: string) => (/^\d{1,6}$/.test(text) ? Number(text) : text),
    },
  },
  responses: {
    200: jsonResponse('the records found', decisionRecordsAnswerSchema),
    400: problem('`invalid_request`: a query parameter is not valid (`errors[].path` names it)'),
    ...common,
    503: unavailable,
  },
  handler: async (_req, res, { deps, query }) => {
    const wanted: DecisionQuery = {
      solutions: solutionFilterOf(principalOf(res)),
      limit: (query.limit as number | undefined) ?? DEFAULT_LIMIT,
      ...(query.solution === undefined ? {} : { solution: query.solution as string }),
      ...(query.action === undefined ? {} : { action: query.action as string }),
      ...(query.outcome === undefined ? {} : { outcome: query.outcome as DecisionRecordOutcome }),
      ...(query.decisionId === undefined ? {} : { decisionId: query.decisionId as string }),
      ...(query.from === undefined ? {} : { from: query.from as number }),
      ...(query.to === undefined ? {} : { to: query.to as number }),
    };
    const reader = records(deps.decisionRecords);
    res.setHeader('Cache-Control', 'no-store');
    res.json(await reading(() => reader.search(wanted)));
  },
});

/** `GET /ws/decisions/{decisionId}` (scope `solution:admin`): one decision's record. */
export const showDecision = papRoute({
  method: 'get',
  path: '/ws/decisions/{decisionId}',
  summary: "a decision's record",
  description:
    'The record of one decision, by the id its answer carried. 404 when the stream holds none: never made, aged out, ' +
    'dropped by a pdp whose buffer was full, or of a solution the token does not cover.',
  scope: SCOPES.solutionAdmin,
  params: {
    decisionId: {
      schema: Type.String({ pattern: DECISION_ID_PATTERN }),
      description: 'the decision id, `urn:decision:<uuid>`',
      invalid: (text: string) => problems.badRequest(ERROR_CODES.invalidId, `\`${text.slice(0, 128)}\` is not a decision id; expected \`urn:decision:<uuid>\``),
    },
  },
  responses: {
    200: jsonResponse('the record', decisionRecordSchema),
    400: problem('`invalid_id`: not a decision id'),
    404: problem('no record of that decision'),
    ...common,
    503: unavailable,
  },
  handler: async (_req, res, { deps, params }) => {
    const reader = records(deps.decisionRecords);
    const found = await reading(() => reader.find(params.decisionId as string, solutionFilterOf(principalOf(res))));
    if (found === undefined) throw problems.notFound(`no record of decision \`${params.decisionId as string}\``);
    res.setHeader('Cache-Control', 'no-store');
    res.json(found);
  },
});
