import { HEADERS, MAX_BATCH_BYTES, MAX_BATCH_ITEMS, MIN_REVISION_WAIT_MS } from '@custos/contracts';
import { problemResponse as problem } from '@custos/service-kit';

/** What the OpenAPI document says the decision routes share: headers, errors and the AuthZEN notes. */

const policyRevisionHeader = { description: 'revision of the policy set that decided', schema: { type: 'integer', minimum: 0 } };

export const revisionHeader = {
  [HEADERS.policyRevision]: policyRevisionHeader,
  [HEADERS.requestId]: { description: 'the request id (echoed when the client sent a safe one)', schema: { type: 'string' } },
};

const minRevisionParameter = {
  name: HEADERS.minPolicyRevision,
  in: 'header',
  required: false,
  description: `answer only once this revision is active; waits up to ${MIN_REVISION_WAIT_MS} ms, then 503 \`policy_revision_unavailable\``,
  schema: { type: 'integer', minimum: 0 },
};

export const decisionParameters = [
  minRevisionParameter,
  {
    name: HEADERS.requestId,
    in: 'header',
    required: false,
    description: 'a request id to correlate logs (`[A-Za-z0-9._:-]{1,128}`); one is made up otherwise',
    schema: { type: 'string' },
  },
];

export const decisionErrors = {
  400: problem('malformed JSON (`malformed_json`, with line and column), a body that breaks the schema or repeats a parameter name (`invalid_event`, with paths), or a bad `Min-Policy-Revision` (`invalid_request`)'),
  401: problem('missing (`unauthorized`) or invalid (`invalid_token`) bearer token; `WWW-Authenticate: Bearer` says which'),
  403: problem("the token lacks `event:decide`, or does not grant the solution of the event's action (`insufficient_scope`)"),
  405: problem('any method other than POST (`Allow: POST`)'),
  413: problem('the body exceeds 1 MiB, or its checks would visit more than 1,000,000 JSON values (`payload_too_large`)'),
  415: problem('the body is not `application/json` (UTF-8) (`unsupported_media_type`)'),
  429: problem(
    'the solution of the token has `PDP_SOLUTION_MAX_CONCURRENCY` requests in flight on this replica, or is past `PDP_SOLUTION_RATE` decisions a second (`too_many_requests`); `Retry-After` says when to try again',
  ),
  500: problem('a bug; logged, answered without detail (`internal_error`)'),
  503: problem(
    'no policy set is active yet (`service_unavailable`), the demanded `Min-Policy-Revision` did not arrive in time (`policy_revision_unavailable`), or the signing keys cannot be fetched; `Retry-After` says when to try again',
  ),
};

const MIB = 1024 * 1024;
export const BATCH_LIMITS = `At most ${MAX_BATCH_ITEMS} items and ${MAX_BATCH_BYTES / MIB} MiB.`;

/** The errors of the batch routes: those of POST /event, with the larger body and the item bound. */
export const batchErrors = (invalid: string) => ({
  ...decisionErrors,
  400: problem(`malformed JSON (\`malformed_json\`), or ${invalid}, each problem with its path; nothing is decided`),
  403: problem('the token lacks `event:decide`, or does not grant the solution of one of the actions (`insufficient_scope`); nothing is decided'),
  413: problem(
    `the body exceeds ${MAX_BATCH_BYTES / MIB} MiB, carries more than ${MAX_BATCH_ITEMS} items, holds an item larger than a single call may be (1 MiB, at the item's path), or its checks would visit more than 1,000,000 JSON values (\`payload_too_large\`); nothing is decided`,
  ),
});

export const authzenNote =
  'AuthZEN Authorization API 1.0 (final). Errors are problem+json objects whose `detail` is the error message (§10.1.2 asks for a message, §10.1.1 for an object). ' +
  'An `X-Request-ID` sent is answered unchanged (§10.1.3). Every evaluation is mapped onto a Custos event (docs/api.md, "AuthZEN"): ' +
  '`action.name` → `urn:action:<solution>:<name>` (a bare name needs a token of exactly one solution; otherwise send the whole URN), ' +
  '`subject`, `resource`, `action`, `context` → complex parameters of those names; `decision` is true iff the event is allowed (and, with ' +
  '`options.custos_modifiers_supported: false`, carries no modifiers; no modifier aims at another parameter); an action no deployed mechanism ' +
  'reacts to is denied (`PDP_AUTHZEN_DEFAULT`). `context` is present only when the PEP must act on it (`modifiers`, `delay_ms`, ' +
  '`unmatched_parameters`) or `options.custos_context: true` asks for it (then also `decision_id`, `policy_revision`, `reason`).';

export const authzenParameters = [
  minRevisionParameter,
  { name: 'X-Request-ID', in: 'header', required: false, description: 'any request identifier; answered unchanged', schema: { type: 'string' } },
];

export const authzenHeaders = {
  [HEADERS.policyRevision]: policyRevisionHeader,
  'X-Request-ID': { description: 'the `X-Request-ID` sent, unchanged; one made up otherwise', schema: { type: 'string' } },
  [HEADERS.decisionId]: {
    description: 'the decision id (`urn:decision:…`, the key of the decision log); for `/access/v1/evaluations` the ids of the decisions in order, comma-separated',
    schema: { type: 'string' },
  },
};

export const DECIDE = [{ bearer: ['event:decide'] }];
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const jsonBody = (schema: object, description?: string) => ({
  required: true,
  ...(description === undefined ? {} : { description }),
  content: { 'application/json': { schema } },
});
