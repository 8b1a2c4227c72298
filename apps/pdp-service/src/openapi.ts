import {
  EXPLAINED_DECISION_EXAMPLE,
  AUTHZEN_PATHS,
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
import { jwtBearerScheme, serviceDocument } from '@custos/service-kit';
import { replicaStatusSchema } from './routes/status';
import { EXECUTION_ROUTES, PDP_ROUTES } from './routes/table';

/** The decision's schema as plain JSON Schema, to extend: the document's type then names no TypeBox marker. */
const DECISION: { type: 'object'; required?: string[]; properties: (typeof authorizationDecisionSchema)['properties'] } = authorizationDecisionSchema;

/** OpenAPI 3.1 of every route the pdp serves (served at /openapi.json, rendered at /docs): its operations come from the route table. */
export const openapi = serviceDocument({
  info: {
    title: 'Custos pdp-service',
    version: '0.1.0',
    description:
      'The decision point: enforcement points ask whether an event may happen and get allow/inhibit, modifiers and a delay, ' +
      'decided by the deployed policy set this replica follows (snapshot + ordered NATS changes). ' +
      "Decision routes need a bearer token with scope `event:decide` for the event's solution; `/executions` needs `component:read` " +
      "(`component:write` to retry) and shows the token's solutions only; the rest needs no token and shows no policy content.",
  },
  tags: [
    { name: 'decisions', description: 'what enforcement points ask (scope `event:decide`)' },
    { name: 'authzen', description: 'the OpenID AuthZEN Authorization API 1.0 (scope `event:decide`; the metadata is public)' },
  ],
  operations: 'status, health, metrics, documentation',
  security: [],
  tagOf: (path) => (path.startsWith('/event') ? 'decisions' : path.startsWith('/access/') || path === AUTHZEN_PATHS.metadata ? 'authzen' : 'operations'),
  readiness: 'Ready once the first policy snapshot is active.',
  routes: [...PDP_ROUTES, ...EXECUTION_ROUTES],
  components: {
    securitySchemes: {
      bearer: jwtBearerScheme('an ES256 access token from the auth service (`POST /oauth/token`), verified against its JWKS'),
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
        ...DECISION,
        required: [...(DECISION.required ?? []), 'explanation', 'policyRevision'],
        examples: [EXPLAINED_DECISION_EXAMPLE],
        properties: {
          ...DECISION.properties,
          policyRevision: { type: 'integer', description: 'revision of the policy set that decided' },
          explanation: { type: 'array', items: { $ref: '#/components/schemas/MechanismExplanation' } },
          defaultDecision: {
            type: 'object',
            description: "present only when no mechanism decided: the default that did, from the solution's settings or the pdp's `DEFAULT_DECISION`",
            required: ['decision', 'source'],
            properties: { decision: { enum: ['allow', 'inhibit'] }, source: { enum: ['solution', 'pdp'] } },
          },
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
      Problem: problemSchema,
    },
  },
});
