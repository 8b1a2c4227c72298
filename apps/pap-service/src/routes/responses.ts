import { jsonResponse, problemResponse, type ResponseSpec } from '@custos/service-kit';

/** Answers many of pap's operations share, in the OpenAPI document's words. */

export const problem = problemResponse;

export const REVISION_HEADER = { 'Policy-Revision': { $ref: '#/components/headers/PolicyRevision' } };

/** A JSON boolean answer, optionally with the `Policy-Revision` it took effect at. */
export const booleanAnswer = (description: string, revision = false): ResponseSpec =>
  jsonResponse(description, { type: 'boolean' }, revision ? REVISION_HEADER : undefined);

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** What every scoped operation may answer besides its own. */
export const common = {
  401: problem('missing, malformed, expired or forged token (`WWW-Authenticate: Bearer`)'),
  403: problem('the token lacks the scope, or the resource belongs to a solution the token does not cover (whether or not it exists)'),
  503: problem('`service_unavailable`: the database (or the signing keys) cannot be reached right now; nothing of the request was stored', {
    'Retry-After': { $ref: '#/components/headers/RetryAfter' },
  }),
};

export const badId = problem('`invalid_id`: the id in the URL is not a well-formed URN');
