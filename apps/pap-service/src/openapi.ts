import { COMPONENT_TYPES, SCOPES, componentSchema, interfaceSchema, pepInterfaceSchema, problemSchema } from '@custos/contracts';
import { tagOperations } from '@custos/service-kit';
import { consoleOpenapiPaths } from './console/openapi-paths';

/** OpenAPI 3.1 description of everything pap-service serves (api.md §4, §5). */

const json = (schema: object) => ({ 'application/json': { schema } });
const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});
const booleanAnswer = (description: string, revision = false) => ({
  description,
  content: json({ type: 'boolean' }),
  ...(revision ? { headers: { 'Policy-Revision': { $ref: '#/components/headers/PolicyRevision' } } } : {}),
});
const auth = (scope: string) => ({
  security: [{ bearer: [scope] }],
});
const common = {
  401: problem('missing, malformed, expired or forged token (`WWW-Authenticate: Bearer`)'),
  403: problem('the token lacks the scope, or the resource belongs to a solution the token does not cover (whether or not it exists)'),
  503: {
    ...problem('`service_unavailable`: the database (or the signing keys) cannot be reached right now; nothing of the request was stored'),
    headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } },
  },
};
const policyIdPath = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'the whole policy URN, e.g. `urn:policy:acme:mask-names`',
  schema: { type: 'string', pattern: '^urn:policy:[a-z0-9._-]+:[A-Za-z0-9._-]+$' },
};
const componentIdPath = {
  name: 'identifier',
  in: 'path',
  required: true,
  description: 'the component URN, e.g. `urn:component:acme:pip:hr`',
  schema: { type: 'string', pattern: '^urn:component:[a-z0-9._-]+:(pep|pip|pxp):[A-Za-z0-9._-]+$' },
};
const timerIdPath = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'the whole timer URN, e.g. `urn:timer:acme:nightly`',
  schema: { type: 'string', pattern: '^urn:timer:[a-z0-9._-]+:[A-Za-z0-9._-]+$' },
};
const badId = problem('`invalid_id`: the id in the URL is not a well-formed URN');
const xmlBodyDoc = {
  required: true,
  description: 'the policy XML (up to 5 MiB); a DOCTYPE is rejected',
  content: {
    'application/xml': { schema: { type: 'string' } },
    'text/xml': { schema: { type: 'string' } },
  },
};
const timerBodyDoc = {
  required: true,
  description:
    'a timer document (policy-language.md §10, namespace `http://www.mydata-control.de/4.0/mydataLanguageTimer`): ' +
    '`<timer id="urn:timer:<solution>:<name>" cron="<quartz cron, seconds first>" description?>` with `<event action>` ' +
    'children holding constant `parameter:*`; a DOCTYPE is rejected',
  content: {
    'application/xml': { schema: { type: 'string' } },
    'text/xml': { schema: { type: 'string' } },
  },
};
const invalidTimer = problem(
  '`invalid_policy`: the timer is malformed, its cron is not a quartz schedule or never fires again, or an action is of another solution; `errors` lists every problem with line and column',
);
const invalidPolicy = problem(
  '`invalid_policy`: the XML is malformed or breaks a language or solution rule; `errors` lists every problem with line and column',
);

const TAGS = [
  { name: 'components', description: 'PEPs, PIPs and PXPs of a solution' },
  { name: 'policies', description: 'policies and their deployment' },
  { name: 'timers', description: 'timers and their deployment' },
  { name: 'operations', description: 'health, metrics, documentation' },
];
const tagOf = (path: string) =>
  path.startsWith('/ws/component') ? 'components' : path.startsWith('/ws/policy') ? 'policies' : path.startsWith('/ws/timer') ? 'timers' : 'operations';

export const openapi = {
  openapi: '3.1.0',
  info: {
    title: 'Custos pap-service',
    version: '0.1.0',
    description:
      'Policy administration: components, policies and the deployed set. Every change of the deployed set gets a ' +
      'new gap-free revision (header `Policy-Revision`) and reaches the decision points through NATS.',
  },
  servers: [{ url: '/' }],
  tags: TAGS,
  components: {
    securitySchemes: {
      bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'an access token of auth-service' },
    },
    headers: {
      RetryAfter: { description: 'seconds to wait before trying again', schema: { type: 'integer', minimum: 0 } },
      PolicyRevision: {
        description: 'the revision of the deployed set at which the call took effect (the current one when nothing changed)',
        schema: { type: 'integer', minimum: 0 },
      },
    },
    schemas: {
      Problem: problemSchema,
      // The envelope pap validates first, with the interface shapes it checks next for the component's type.
      Component: {
        ...componentSchema,
        properties: {
          ...componentSchema.properties,
          componentInterfaces: {
            ...componentSchema.properties.componentInterfaces,
            description: '`PepInterfaceDescription`s for a PEP, `InterfaceDescription`s for a PIP or PXP',
            items: { oneOf: [{ $ref: '#/components/schemas/PepInterfaceDescription' }, { $ref: '#/components/schemas/InterfaceDescription' }] },
          },
        },
      },
      PepInterfaceDescription: pepInterfaceSchema,
      InterfaceDescription: interfaceSchema,
      PolicyId: {
        type: 'object',
        required: ['identifier'],
        properties: { identifier: { type: 'string', examples: ['urn:policy:acme:mask-names'] } },
      },
      TimerId: {
        type: 'object',
        required: ['identifier'],
        properties: { identifier: { type: 'string', examples: ['urn:timer:acme:nightly'] } },
      },
      Timer: {
        type: 'object',
        required: ['id', 'description', 'cron', 'deployed', 'xml', 'createdAt', 'updatedAt'],
        properties: {
          id: { $ref: '#/components/schemas/TimerId' },
          description: { type: ['string', 'null'] },
          cron: { type: 'string', description: 'quartz cron expression, seconds first, as written' },
          deployed: { type: 'boolean' },
          xml: { type: 'string' },
          createdAt: { type: 'string', format: 'date-time' },
          updatedAt: { type: 'string', format: 'date-time' },
        },
      },
      Policy: {
        type: 'object',
        required: ['id', 'name', 'description', 'deployed', 'xml', 'createdAt', 'updatedAt'],
        properties: {
          id: { $ref: '#/components/schemas/PolicyId' },
          name: { type: ['string', 'null'] },
          description: { type: ['string', 'null'] },
          deployed: { type: 'boolean' },
          xml: { type: 'string' },
          createdAt: { type: 'string', format: 'date-time' },
          updatedAt: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
  paths: tagOperations({
    '/ws/component': {
      get: {
        summary: 'list components',
        description: 'Components of the solutions in the token, ordered by id.',
        ...auth(SCOPES.componentRead),
        parameters: [
          { name: 'type', in: 'query', required: false, schema: { type: 'string', enum: [...COMPONENT_TYPES] } },
        ],
        responses: {
          200: { description: 'the components', content: json({ type: 'array', items: { $ref: '#/components/schemas/Component' } }) },
          400: problem('`invalid_request`: unknown `type`'),
          ...common,
        },
      },
      post: {
        summary: 'register a component',
        description:
          'Registers a component; the same identifier again replaces it. `componentType` must equal the type segment ' +
          'of the identifier; URLs may be http, https or rmi; PIP methods are `urn:info:<solution>:<m>` or bare names, ' +
          'PXP methods `urn:action:<solution>:<a>` of the component\'s own solution. A PIP\'s or PXP\'s http(s) URL with ' +
          'user information is refused (no pdp ever calls it); one that a pdp with the default egress policy (public ' +
          'addresses only, docs/security.md) refuses to call is registered with a `Custos-Warning`. Host names are not ' +
          'resolved here: the pdp checks what they resolve to when it calls them.',
        ...auth(SCOPES.componentWrite),
        requestBody: { required: true, content: json({ $ref: '#/components/schemas/Component' }) },
        responses: {
          200: {
            ...booleanAnswer('`true`; `Policy-Revision`: a new or changed PIP/PXP gets a new revision (it travels to the pdps), anything else the current one', true),
            headers: {
              'Policy-Revision': { $ref: '#/components/headers/PolicyRevision' },
              'Custos-Warning': {
                description:
                  'one line per URL a pdp without `PDP_CALL_ALLOW` refuses to call (at most 8, then one saying how many more): an ' +
                  'RFC 8941 string, the message, with the parameters `code` (`egress_refused_by_default`) and `path` (e.g. `urls[0]`)',
                schema: { type: 'string' },
                example: '"a pdp with the default egress policy does not call this url: ...";code="egress_refused_by_default";path="urls[0]"',
              },
            },
          },
          400: problem('`malformed_json` or `invalid_component` with the path of every problem (user information in a PIP/PXP URL included)'),
          413: problem('body over 1 MiB'),
          415: problem('not `application/json`'),
          ...common,
        },
      },
    },
    '/ws/component/{identifier}': {
      parameters: [componentIdPath],
      get: {
        summary: 'look up a component',
        ...auth(SCOPES.componentRead),
        responses: {
          200: { description: 'the component as registered', content: json({ $ref: '#/components/schemas/Component' }) },
          400: badId,
          404: problem('no such component'),
          ...common,
        },
      },
      delete: {
        summary: 'unregister a component',
        ...auth(SCOPES.componentWrite),
        responses: {
          200: booleanAnswer('`true` when it was registered, else `false`; removing a PIP/PXP gets a new revision (`Policy-Revision`)', true),
          400: badId,
          ...common,
        },
      },
    },
    '/ws/policy': {
      post: {
        summary: 'add a policy',
        description: 'Validates the policy completely and stores it, not deployed. The token must cover its solution.',
        ...auth(SCOPES.policyWrite),
        requestBody: xmlBodyDoc,
        responses: {
          201: {
            ...booleanAnswer('`true`'),
            headers: { Location: { description: '`/ws/policy/{id}`', schema: { type: 'string' } } },
          },
          400: invalidPolicy,
          409: problem('a policy with this id exists'),
          413: problem('body over 5 MiB'),
          415: problem('not `application/xml` or `text/xml`'),
          ...common,
        },
      },
    },
    '/ws/policy/deployed': {
      get: {
        summary: 'list deployed policies',
        description: 'Deployed policies of the solutions in the token, ordered by id.',
        ...auth(SCOPES.policyRead),
        responses: {
          200: { description: 'the policies', content: json({ type: 'array', items: { $ref: '#/components/schemas/Policy' } }) },
          ...common,
        },
      },
    },
    '/ws/policy/{id}': {
      parameters: [policyIdPath],
      get: {
        summary: 'show a policy',
        description: 'The Policy as JSON; with `Accept: application/xml` (or `text/xml`) the XML as stored.',
        ...auth(SCOPES.policyRead),
        responses: {
          200: {
            description: 'the policy',
            content: {
              ...json({ $ref: '#/components/schemas/Policy' }),
              'application/xml': { schema: { type: 'string' } },
              'text/xml': { schema: { type: 'string' } },
            },
          },
          400: badId,
          404: problem('no such policy'),
          406: problem('`not_acceptable`: none of JSON or XML is acceptable'),
          ...common,
        },
      },
      put: {
        summary: 'replace a policy',
        description:
          'Replaces the text of an existing policy (same id in URL and XML). A deployed policy is re-deployed atomically ' +
          'with a new revision, answered in `Policy-Revision`.',
        ...auth(SCOPES.policyWrite),
        requestBody: xmlBodyDoc,
        responses: {
          200: booleanAnswer('`true`; `Policy-Revision` when the policy is deployed', true),
          400: problem('`invalid_id`, `invalid_policy`, or the ids of URL and XML differ'),
          404: problem('no such policy'),
          413: problem('body over 5 MiB'),
          415: problem('not `application/xml` or `text/xml`'),
          ...common,
        },
      },
      delete: {
        summary: 'remove a policy',
        description: 'Removes the policy; a deployed one is revoked first, in the same transaction.',
        ...auth(SCOPES.policyWrite),
        responses: { 200: booleanAnswer('`true` when it existed and is gone, else `false`', true), 400: badId, ...common },
      },
    },
    '/ws/policy/{id}/deploy': {
      parameters: [policyIdPath],
      post: {
        summary: 'deploy a policy',
        ...auth(SCOPES.policyWrite),
        responses: {
          200: booleanAnswer('`true` when deployed after the call (idempotent), `false` when no such policy', true),
          400: badId,
          ...common,
        },
      },
    },
    '/ws/policy/{id}/revoke': {
      parameters: [policyIdPath],
      get: {
        summary: 'revoke a policy',
        ...auth(SCOPES.policyWrite),
        responses: {
          200: booleanAnswer('`true` when it was deployed and is not any more, else `false`', true),
          400: badId,
          ...common,
        },
      },
      post: {
        summary: 'revoke a policy (POST form)',
        ...auth(SCOPES.policyWrite),
        responses: {
          200: booleanAnswer('`true` when it was deployed and is not any more, else `false`', true),
          400: badId,
          ...common,
        },
      },
    },
    '/ws/policy/{id}/status': {
      parameters: [policyIdPath],
      get: {
        summary: 'deployment status',
        ...auth(SCOPES.policyRead),
        responses: { 200: booleanAnswer('`true` when deployed, else `false`'), 400: badId, ...common },
      },
    },
    '/ws/policy-ids': {
      get: {
        summary: 'ids of all policies',
        ...auth(SCOPES.policyRead),
        responses: {
          200: { description: 'sorted ids', content: json({ type: 'array', items: { $ref: '#/components/schemas/PolicyId' } }) },
          ...common,
        },
      },
    },
    '/ws/policy-ids/deployed': {
      get: {
        summary: 'ids of deployed policies',
        ...auth(SCOPES.policyRead),
        responses: {
          200: { description: 'sorted ids', content: json({ type: 'array', items: { $ref: '#/components/schemas/PolicyId' } }) },
          ...common,
        },
      },
    },
    '/ws/timer': {
      post: {
        summary: 'add a timer',
        description: 'Validates the timer completely and stores it, not deployed. Scopes and solution rules are those of policies.',
        ...auth(SCOPES.policyWrite),
        requestBody: timerBodyDoc,
        responses: {
          201: { ...booleanAnswer('`true`'), headers: { Location: { description: '`/ws/timer/{id}`', schema: { type: 'string' } } } },
          400: invalidTimer,
          409: problem('a timer with this id exists'),
          413: problem('body over 5 MiB'),
          415: problem('not `application/xml` or `text/xml`'),
          ...common,
        },
      },
    },
    '/ws/timer/{id}': {
      parameters: [timerIdPath],
      get: {
        summary: 'show a timer',
        description: 'The Timer as JSON; with `Accept: application/xml` (or `text/xml`) the XML as stored.',
        ...auth(SCOPES.policyRead),
        responses: {
          200: {
            description: 'the timer',
            content: { ...json({ $ref: '#/components/schemas/Timer' }), 'application/xml': { schema: { type: 'string' } }, 'text/xml': { schema: { type: 'string' } } },
          },
          400: badId,
          404: problem('no such timer'),
          406: problem('`not_acceptable`: none of JSON or XML is acceptable'),
          ...common,
        },
      },
      put: {
        summary: 'replace a timer',
        description: 'Replaces an existing timer (same id in URL and XML); a deployed one is re-deployed atomically with a new revision.',
        ...auth(SCOPES.policyWrite),
        requestBody: timerBodyDoc,
        responses: {
          200: booleanAnswer('`true`; `Policy-Revision` when the timer is deployed', true),
          400: problem('`invalid_id`, `invalid_policy`, or the ids of URL and XML differ'),
          404: problem('no such timer'),
          413: problem('body over 5 MiB'),
          415: problem('not `application/xml` or `text/xml`'),
          ...common,
        },
      },
      delete: {
        summary: 'remove a timer',
        description: 'Removes the timer; a deployed one is revoked first, in the same transaction.',
        ...auth(SCOPES.policyWrite),
        responses: { 200: booleanAnswer('`true` when it existed and is gone, else `false`', true), 400: badId, ...common },
      },
    },
    '/ws/timer/{id}/deploy': {
      parameters: [timerIdPath],
      post: {
        summary: 'deploy a timer',
        description: 'Every pdp replica schedules it; each tick fires once across all replicas.',
        ...auth(SCOPES.policyWrite),
        responses: { 200: booleanAnswer('`true` when deployed after the call (idempotent), `false` when no such timer', true), 400: badId, ...common },
      },
    },
    '/ws/timer/{id}/revoke': {
      parameters: [timerIdPath],
      get: {
        summary: 'revoke a timer',
        ...auth(SCOPES.policyWrite),
        responses: { 200: booleanAnswer('`true` when it was deployed and is not any more, else `false`', true), 400: badId, ...common },
      },
      post: {
        summary: 'revoke a timer (POST form)',
        ...auth(SCOPES.policyWrite),
        responses: { 200: booleanAnswer('`true` when it was deployed and is not any more, else `false`', true), 400: badId, ...common },
      },
    },
    '/ws/timer/{id}/status': {
      parameters: [timerIdPath],
      get: {
        summary: 'timer deployment status',
        ...auth(SCOPES.policyRead),
        responses: { 200: booleanAnswer('`true` when deployed, else `false`'), 400: badId, ...common },
      },
    },
    '/ws/timer-ids': {
      get: {
        summary: 'ids of all timers',
        ...auth(SCOPES.policyRead),
        responses: { 200: { description: 'sorted ids', content: json({ type: 'array', items: { $ref: '#/components/schemas/TimerId' } }) }, ...common },
      },
    },
    '/ws/timer-ids/deployed': {
      get: {
        summary: 'ids of deployed timers',
        ...auth(SCOPES.policyRead),
        responses: { 200: { description: 'sorted ids', content: json({ type: 'array', items: { $ref: '#/components/schemas/TimerId' } }) }, ...common },
      },
    },
    '/health/live': { get: { summary: 'liveness', responses: { 200: { description: 'the process runs' } } } },
    '/health/ready': {
      get: {
        summary: 'readiness',
        description: 'Ready when the database answers; reports the NATS connection state (pap stays ready without NATS: the outbox keeps changes).',
        responses: { 200: { description: 'ready' }, 503: { description: 'the database is unreachable' } },
      },
    },
    '/metrics': { get: { summary: 'Prometheus metrics', responses: { 200: { description: 'text exposition format' } } } },
    '/openapi.json': { get: { summary: 'this document', responses: { 200: { description: 'OpenAPI 3.1' } } } },
    '/docs': { get: { summary: 'human-readable API page', responses: { 200: { description: 'HTML' } } } },
    ...consoleOpenapiPaths,
  } as const, tagOf),
} as const;
