import {
  AUTHZEN_PATHS,
  HEADERS,
  MAX_BATCH_BYTES,
  MAX_BATCH_ITEMS,
  MIN_REVISION_WAIT_MS,
  accessEvaluationRequestSchema,
  accessEvaluationsRequestSchema,
  accessEvaluationsResponseSchema,
  authzenDecisionSchema,
  decisionBatchSchema,
  eventBatchSchema,
  pdpMetadataSchema,
  answeredValueSchema,
  authorizationDecisionSchema,
  eventSchema,
  modifierSchema,
  problemSchema,
} from '@custos/contracts';
import { tagOperations } from '@custos/service-kit';
import { replicaStatusSchema } from './routes/status';

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

const policyRevisionHeader = { description: 'revision of the policy set that decided', schema: { type: 'integer', minimum: 0 } };

const revisionHeader = {
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

const decisionParameters = [
  minRevisionParameter,
  {
    name: HEADERS.requestId,
    in: 'header',
    required: false,
    description: 'a request id to correlate logs (`[A-Za-z0-9._:-]{1,128}`); one is made up otherwise',
    schema: { type: 'string' },
  },
];

const decisionErrors = {
  '400': problem('malformed JSON (`malformed_json`, with line and column), a body that breaks the schema or repeats a parameter name (`invalid_event`, with paths), or a bad `Min-Policy-Revision` (`invalid_request`)'),
  '401': problem('missing (`unauthorized`) or invalid (`invalid_token`) bearer token; `WWW-Authenticate: Bearer` says which'),
  '403': problem('the token lacks `event:decide`, or does not grant the solution of the event\'s action (`insufficient_scope`)'),
  '405': problem('any method other than POST (`Allow: POST`)'),
  '413': problem('the body exceeds 1 MiB, or its checks would visit more than 1,000,000 JSON values (`payload_too_large`)'),
  '415': problem('the body is not `application/json` (UTF-8) (`unsupported_media_type`)'),
  '429': problem(
    'the solution of the token has `PDP_SOLUTION_MAX_CONCURRENCY` requests in flight on this replica, or is past `PDP_SOLUTION_RATE` decisions a second (`too_many_requests`); `Retry-After` says when to try again',
  ),
  '500': problem('a bug; logged, answered without detail (`internal_error`)'),
  '503': problem(
    'no policy set is active yet (`service_unavailable`), the demanded `Min-Policy-Revision` did not arrive in time (`policy_revision_unavailable`), or the signing keys cannot be fetched; `Retry-After` says when to try again',
  ),
};

const MIB = 1024 * 1024;

/** The errors of the batch routes: those of POST /event, with the larger body and the item bound. */
const batchErrors = (invalid: string) => ({
  ...decisionErrors,
  '400': problem(`malformed JSON (\`malformed_json\`), or ${invalid}, each problem with its path; nothing is decided`),
  '403': problem('the token lacks `event:decide`, or does not grant the solution of one of the actions (`insufficient_scope`); nothing is decided'),
  '413': problem(
    `the body exceeds ${MAX_BATCH_BYTES / MIB} MiB, carries more than ${MAX_BATCH_ITEMS} items, holds an item larger than a single call may be (1 MiB, at the item's path), or its checks would visit more than 1,000,000 JSON values (\`payload_too_large\`); nothing is decided`,
  ),
});

const authzenNote =
  'AuthZEN Authorization API 1.0 (final). Errors are problem+json objects whose `detail` is the error message (§10.1.2 asks for a message, §10.1.1 for an object). ' +
  'An `X-Request-ID` sent is answered unchanged (§10.1.3). Every evaluation is mapped onto a Custos event (docs/api.md, "AuthZEN"): ' +
  '`action.name` → `urn:action:<solution>:<name>` (a bare name needs a token of exactly one solution; otherwise send the whole URN), ' +
  '`subject`, `resource`, `action`, `context` → complex parameters of those names; `decision` is true iff the event is allowed (and, with ' +
  '`options.custos_modifiers_supported: false`, carries no modifiers); `context` carries `decision_id`, `policy_revision`, `modifiers`, `delay_ms`.';

const authzenParameters = [
  minRevisionParameter,
  { name: 'X-Request-ID', in: 'header', required: false, description: 'any request identifier; answered unchanged', schema: { type: 'string' } },
];

const authzenHeaders = {
  [HEADERS.policyRevision]: policyRevisionHeader,
  'X-Request-ID': { description: 'the `X-Request-ID` sent, unchanged; one made up otherwise', schema: { type: 'string' } },
};

const decisionRequestBody = {
  required: true,
  description: 'an Event (api.md §3): `actionId` as `{scope, action}` or `{urn}`, `timestamp` in ms, `parameters` with unique names',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Event' } } },
};

const plain = (description: string, contentType: string, schema: object = { type: 'string' }) => ({
  description,
  content: { [contentType]: { schema } },
});

/** OpenAPI 3.1 of every route the pdp serves (served at /openapi.json, rendered at /docs). */
export const openapi = {
  openapi: '3.1.0',
  info: {
    title: 'Custos pdp-service',
    version: '0.1.0',
    description:
      'The decision point: enforcement points ask whether an event may happen and get allow/inhibit, modifiers and a delay, ' +
      'decided by the deployed policy set this replica follows (snapshot + ordered NATS changes). ' +
      'Decision routes need a bearer token with scope `event:decide` for the event\'s solution; `/executions` needs `component:read` ' +
      '(`component:write` to retry) and shows the token\'s solutions only; the rest needs no token and shows no policy content.',
  },
  servers: [{ url: '/' }],
  tags: [
    { name: 'decisions', description: 'what enforcement points ask (scope `event:decide`)' },
    { name: 'authzen', description: 'the OpenID AuthZEN Authorization API 1.0 (scope `event:decide`; the metadata is public)' },
    { name: 'operations', description: 'status, health, metrics, documentation' },
  ],
  security: [],
  paths: tagOperations({
    '/event': {
      post: {
        operationId: 'decide',
        summary: 'Decide an event',
        description:
          'Evaluates every deployed mechanism of the event\'s action and combines them (policy-language.md §7): any inhibit wins; ' +
          'otherwise allowed with the modifiers of the allowing branches. With no deciding mechanism, `DEFAULT_DECISION` applies. ' +
          'Every decision is logged (without parameter values) under its id.',
        security: [{ bearer: ['event:decide'] }],
        parameters: decisionParameters,
        requestBody: decisionRequestBody,
        responses: {
          '200': {
            description: 'the decision',
            headers: revisionHeader,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/AuthorizationDecision' } } },
          },
          ...decisionErrors,
        },
      },
    },
    '/event/explain': {
      post: {
        operationId: 'explain',
        summary: 'Decide an event and explain the decision',
        description:
          'The same decision as POST /event plus, for each mechanism of a matching policy, the branch taken, the values of its conditions, ' +
          'errors, and the delays, modifiers and executes it contributed, with the PIP answers (and whether they came from the cache), ' +
          'history counts, spans and windows, and valueChanged comparisons it used. No side effects: nothing is recorded in the event ' +
          'history (counts include the explained event as if it had been), no valueChanged state is stored, no PXP is called.',
        security: [{ bearer: ['event:decide'] }],
        parameters: decisionParameters,
        requestBody: decisionRequestBody,
        responses: {
          '200': {
            description: 'the decision with its explanation',
            headers: revisionHeader,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/ExplainedDecision' } } },
          },
          ...decisionErrors,
        },
      },
    },
    '/events': {
      post: {
        operationId: 'decideBatch',
        summary: 'Decide several events in one request',
        description:
          `Each event is decided exactly as POST /event would decide it, one after another in the order given (a history-using event is recorded before the next is decided), all against the same policy revision; the decisions come back in the same order. At most ${MAX_BATCH_ITEMS} events and ${MAX_BATCH_BYTES / MIB} MiB. ` +
          'The whole batch is checked first: one invalid event, or one of a foreign solution, and nothing is decided or recorded. Every decision has its own id and decision log line; executes are stored before the answer.',
        security: [{ bearer: ['event:decide'] }],
        parameters: decisionParameters,
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/EventBatch' } } } },
        responses: {
          '200': { description: 'the decisions, in the order of the events', headers: revisionHeader, content: { 'application/json': { schema: { $ref: '#/components/schemas/DecisionBatch' } } } },
          ...batchErrors('an event that breaks the schema or repeats a parameter name (`invalid_event`, at `events[i].…`)'),
        },
      },
    },
    [AUTHZEN_PATHS.evaluation]: {
      post: {
        operationId: 'authzenEvaluation',
        summary: 'AuthZEN Access Evaluation (§6)',
        description: `One evaluation, decided as POST /event decides its event. ${authzenNote}`,
        security: [{ bearer: ['event:decide'] }],
        parameters: authzenParameters,
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/AccessEvaluationRequest' } } } },
        responses: {
          '200': { description: 'the decision', headers: authzenHeaders, content: { 'application/json': { schema: { $ref: '#/components/schemas/AuthZenDecision' } } } },
          ...decisionErrors,
          '400': problem('malformed JSON, a missing or mistyped `subject`, `action` or `resource`, or an action name that maps onto no action URN (`invalid_request`, with paths)'),
        },
      },
    },
    [AUTHZEN_PATHS.evaluations]: {
      post: {
        operationId: 'authzenEvaluations',
        summary: 'AuthZEN Access Evaluations (§7)',
        description:
          `Several evaluations, the top-level \`subject\`, \`action\`, \`resource\` and \`context\` being defaults an entry's own replace (§7.1.1); decided in order against one policy revision; \`options.evaluations_semantic\` \`execute_all\` (default), \`deny_on_first_deny\` or \`permit_on_first_permit\` (§7.1.2.1: the answer ends with the decision that stopped it, later entries are not decided). ` +
          `Without \`evaluations\` (or with an empty array) the answer is a single decision. At most ${MAX_BATCH_ITEMS} evaluations and ${MAX_BATCH_BYTES / MIB} MiB. ${authzenNote}`,
        security: [{ bearer: ['event:decide'] }],
        parameters: authzenParameters,
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/AccessEvaluationsRequest' } } } },
        responses: {
          '200': {
            description: 'one decision per evaluation, in order (or a single decision without `evaluations`)',
            headers: authzenHeaders,
            content: { 'application/json': { schema: { oneOf: [{ $ref: '#/components/schemas/AccessEvaluationsResponse' }, { $ref: '#/components/schemas/AuthZenDecision' }] } } },
          },
          ...batchErrors('an evaluation with a mistyped entity, one that lacks `subject`, `action` or `resource` here and as a default, or an action name that maps onto no action URN (`invalid_request`, at `evaluations[i].…`)'),
        },
      },
    },
    [AUTHZEN_PATHS.metadata]: {
      get: {
        operationId: 'authzenMetadata',
        summary: 'AuthZEN PDP metadata (§9)',
        description:
          'Where the AuthZEN endpoints are; no token needed. `policy_decision_point` is `PDP_PUBLIC_URL`, or else the scheme (`X-Forwarded-Proto`) and `Host` the request reached. No search endpoints are offered.',
        responses: {
          '200': plain('the metadata (`Cache-Control: public, max-age=300`)', 'application/json', { $ref: '#/components/schemas/PdpMetadata' }),
          '400': problem('a `Host` header that is not a host name (`invalid_request`), when `PDP_PUBLIC_URL` is not set'),
          '405': problem('any method other than GET or HEAD'),
        },
      },
    },
    '/executions': {
      get: {
        operationId: 'listExecutions',
        summary: 'Stored PXP executes in one state',
        description:
          'The asynchronous executes decisions required, as stored before their answers (docs/api.md, "Executes"), of the token\'s solutions, oldest first. ' +
          '`failed`: attempts spent or no PXP registered; retry them with `POST /executions/{id}/retry`.',
        security: [{ bearer: ['component:read'] }],
        parameters: [
          { name: 'state', in: 'query', schema: { type: 'string', enum: ['pending', 'done', 'refused', 'failed'], default: 'failed' } },
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
        ],
        responses: {
          '200': plain('the executes', 'application/json', {
            type: 'object',
            required: ['executions'],
            properties: { executions: { type: 'array', items: { $ref: '#/components/schemas/Execution' } } },
          }),
          '400': problem('`state` or `limit` out of range (`invalid_request`, with the query path)'),
          '401': problem('missing or invalid bearer token'),
          '403': problem('the token lacks `component:read` (`insufficient_scope`)'),
        },
      },
    },
    '/executions/{id}/retry': {
      post: {
        operationId: 'retryExecution',
        summary: 'Deliver a failed or refused execute again',
        description: 'The execute becomes pending with fresh attempts and is delivered at once, with the same `Idempotency-Key`.',
        security: [{ bearer: ['component:write'] }],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
        responses: {
          '202': plain('the execute, pending again', 'application/json', { $ref: '#/components/schemas/Execution' }),
          '400': problem('the id is not a UUID (`invalid_id`)'),
          '401': problem('missing or invalid bearer token'),
          '403': problem('the token lacks `component:write` (`insufficient_scope`)'),
          '404': problem('no execute with this id in the token\'s solutions (`not_found`)'),
          '409': problem('the execute is pending or done (`conflict`)'),
        },
      },
    },
    '/status': {
      get: {
        operationId: 'status',
        summary: 'Where this replica stands',
        description: 'Replica id, readiness, active revision and size of the set, last snapshot and change times, lag, NATS connection.',
        responses: {
          '200': plain('the status', 'application/json', { $ref: '#/components/schemas/ReplicaStatus' }),
          '405': problem('any method other than GET or HEAD'),
        },
      },
    },
    '/health/live': {
      get: {
        operationId: 'live',
        summary: 'Liveness',
        responses: { '200': plain('the process answers', 'application/json', { type: 'object', properties: { status: { const: 'live' } } }) },
      },
    },
    '/health/ready': {
      get: {
        operationId: 'ready',
        summary: 'Readiness: true once the first policy snapshot is active',
        responses: {
          '200': plain('ready', 'application/json', { $ref: '#/components/schemas/Readiness' }),
          '503': plain('no policy set is active yet', 'application/json', { $ref: '#/components/schemas/Readiness' }),
        },
      },
    },
    '/metrics': {
      get: {
        operationId: 'metrics',
        summary: 'Prometheus metrics',
        description:
          'Besides process and HTTP metrics: `decisions_total{outcome}`, `decision_duration_seconds`, `explains_total{outcome}`, ' +
          '`batch_requests_total{route,outcome}`, `batch_items{route}`, `batch_duration_seconds{route}`, ' +
          '`policy_revision`, `policy_compile_failures_total{source}`, `resyncs_total{reason}`.',
        responses: { '200': plain('metrics in the Prometheus text format', 'text/plain') },
      },
    },
    '/openapi.json': {
      get: { operationId: 'openapi', summary: 'This document', responses: { '200': plain('OpenAPI 3.1', 'application/json', { type: 'object' }) } },
    },
    '/docs': {
      get: { operationId: 'docs', summary: 'Human-readable API documentation', responses: { '200': plain('an HTML page', 'text/html') } },
    },
  } as const, (path) => (path.startsWith('/event') ? 'decisions' : path.startsWith('/access/') || path === AUTHZEN_PATHS.metadata ? 'authzen' : 'operations')),
  components: {
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: 'an ES256 access token from the auth service (`POST /oauth/token`), verified against its JWKS',
      },
    },
    schemas: {
      Execution: {
        type: 'object',
        required: ['id', 'decisionId', 'policyId', 'action', 'parameters', 'state', 'attempts', 'maxAttempts', 'lastError', 'createdAt', 'updatedAt'],
        properties: {
          id: { type: 'string', format: 'uuid', description: 'also the `Idempotency-Key` header of every delivery' },
          decisionId: { type: 'string' },
          timerId: { type: 'string', description: 'the timer whose tick required it, if one did' },
          policyId: { type: 'string' },
          action: { type: 'string' },
          parameters: { type: 'array', items: { $ref: '#/components/schemas/NamedParameter' } },
          state: { type: 'string', enum: ['pending', 'done', 'refused', 'failed'] },
          attempts: { type: 'integer', minimum: 0 },
          maxAttempts: { type: 'integer', minimum: 1 },
          lastError: { type: ['string', 'null'] },
          createdAt: { type: 'string', format: 'date-time' },
          updatedAt: { type: 'string', format: 'date-time' },
        },
      },
      Event: eventSchema,
      EventBatch: eventBatchSchema,
      DecisionBatch: decisionBatchSchema,
      AccessEvaluationRequest: accessEvaluationRequestSchema,
      AccessEvaluationsRequest: accessEvaluationsRequestSchema,
      AuthZenDecision: authzenDecisionSchema,
      AccessEvaluationsResponse: accessEvaluationsResponseSchema,
      PdpMetadata: pdpMetadataSchema,
      ParameterValue: answeredValueSchema,
      NamedParameter: {
        type: 'object',
        required: ['name', 'value'],
        properties: { name: { type: 'string' }, value: { $ref: '#/components/schemas/ParameterValue' } },
      },
      Modifier: modifierSchema,
      AuthorizationDecision: authorizationDecisionSchema,
      ExplainedDecision: {
        ...authorizationDecisionSchema,
        required: [...authorizationDecisionSchema.required, 'explanation', 'policyRevision'],
        properties: {
          ...authorizationDecisionSchema.properties,
          policyRevision: { type: 'integer', description: 'revision of the policy set that decided' },
          explanation: { type: 'array', items: { $ref: '#/components/schemas/MechanismExplanation' } },
        },
      },
      MechanismExplanation: {
        type: 'object',
        properties: {
          policyId: { type: 'string' },
          mechanism: { type: 'integer', description: '0-based position of the mechanism in its policy' },
          event: { type: 'string', description: 'the mechanism\'s action URN' },
          branch: {
            type: 'object',
            description: '`{kind: "if"|"elseif", index}`, `{kind: "else"}` or `{kind: "none"}`',
            properties: { kind: { enum: ['if', 'elseif', 'else', 'none'] }, index: { type: 'integer' } },
          },
          conditions: {
            type: 'array',
            description: 'value of each evaluated condition, in order (null when it failed)',
            items: { type: 'object', properties: { branch: { type: 'integer' }, value: { type: ['boolean', 'null'] } } },
          },
          outcome: { enum: ['allow', 'inhibit', 'none', 'error'] },
          delayMs: { type: 'integer' },
          modifiers: { type: 'array', items: { $ref: '#/components/schemas/Modifier' } },
          executions: {
            type: 'array',
            description: 'executes the branch plans (never carried out by explain)',
            items: { type: 'object', properties: { action: { type: 'string' }, parameters: { type: 'array' } } },
          },
          reason: { type: ['string', 'null'] },
          error: { type: ['string', 'null'] },
          pip: {
            type: 'array',
            description: 'PIP answers used, in order of use (only for mechanisms that asked)',
            items: {
              type: 'object',
              required: ['method', 'parameters', 'value', 'usedDefault', 'cached'],
              properties: {
                method: { type: 'string' },
                parameters: { type: 'array', items: { $ref: '#/components/schemas/NamedParameter' } },
                value: { $ref: '#/components/schemas/ParameterValue' },
                usedDefault: { type: 'boolean' },
                reason: { type: 'string', description: 'why the default was used' },
                cached: { type: 'boolean', description: 'answered from the ttl cache (or by an earlier element of the same request)' },
              },
            },
          },
          history: {
            type: 'array',
            description:
              'event history look-ups: `count` with its span and count, `continuousOccurrence` with every window and its count, ' +
              '`eventOccurrence` FIRST/LAST references with the time found. Spans are ms since the epoch, `from` inclusive (null: ' +
              'the beginning of time), `to` exclusive. The explained event is counted as if it had been recorded; nothing is recorded.',
            items: {
              type: 'object',
              required: ['element', 'action'],
              properties: {
                element: { enum: ['count', 'continuousOccurrence', 'eventOccurrence'] },
                action: { type: 'string' },
                span: { type: 'object', properties: { from: { type: ['integer', 'null'] }, to: { type: 'integer' } } },
                count: { type: 'integer' },
                windows: {
                  type: 'array',
                  items: { type: 'object', properties: { from: { type: ['integer', 'null'] }, to: { type: 'integer' }, count: { type: 'integer' } } },
                },
                mode: { enum: ['first', 'last'] },
                occurrence: { type: ['integer', 'null'] },
              },
            },
          },
          valueChanged: {
            type: 'array',
            description: 'valueChanged blocks: whether the value differs from the stored one (compared only: `stored` is always false here)',
            items: { type: 'object', properties: { id: { type: 'string' }, changed: { type: 'boolean' }, stored: { type: 'boolean' } } },
          },
          values: {
            type: 'array',
            description:
              'every comparison, function and arithmetic element evaluated, outer before inner (`depth`), with the condition that ' +
              'evaluated it (0: the `if`, n: the n-th `elseif`, null: a modify or execute parameter), its operands (`source` says ' +
              'where each value came from: a constant, an event parameter with its jsonPathQuery, a pip method, a variable, a count ' +
              'or an element) and its value, or `error` when it failed. Values are plain JSON; ' +
              'strings over 120 characters, lists and objects over 10 entries and nesting over 3 levels are cut short (`truncated: true`).',
            items: {
              type: 'object',
              required: ['element', 'condition', 'depth', 'operands'],
              properties: {
                element: { type: 'string' },
                condition: { type: ['integer', 'null'] },
                depth: { type: 'integer' },
                operands: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['source'],
                    properties: { source: { type: 'string' }, value: {}, error: { type: 'string' }, truncated: { type: 'boolean' } },
                  },
                },
                value: {},
                error: { type: 'string' },
              },
            },
          },
          conditionExecutions: {
            type: 'array',
            description: '`execute` inside conditions: never called while explaining (`called: false`, answer false)',
            items: {
              type: 'object',
              properties: {
                action: { type: 'string' },
                parameters: { type: 'array', items: { $ref: '#/components/schemas/NamedParameter' } },
                called: { type: 'boolean' },
                answer: { type: 'boolean' },
              },
            },
          },
        },
      },
      ReplicaStatus: replicaStatusSchema,
      Readiness: {
        type: 'object',
        required: ['ready', 'revision'],
        properties: {
          ready: { type: 'boolean' },
          revision: { type: ['integer', 'null'] },
          replica: { type: 'string' },
          natsConnected: { type: 'boolean' },
        },
      },
      Problem: problemSchema,
    },
  },
} as const;
