import { SCOPES } from '@custos/contracts';

/** The OpenAPI paths of issue 10: the dry runs, the replicas and the console with what it forwards. */

const problem = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});
const auth = (scope: string) => ({ security: [{ bearer: [scope] }] });
const common = {
  401: problem('missing, malformed, expired or forged token (`WWW-Authenticate: Bearer`)'),
  403: problem('the token lacks the scope, or the document belongs to a solution the token does not cover'),
};
const xml = (what: string) => ({
  required: true,
  description: `${what} (up to 5 MiB); a DOCTYPE is rejected`,
  content: { 'application/xml': { schema: { type: 'string' } }, 'text/xml': { schema: { type: 'string' } } },
});

const dryRun = (kind: 'policy' | 'timer') => ({
  post: {
    summary: `check a ${kind} as an add would, storing nothing`,
    description:
      `The checks, scope and answers of \`POST /ws/${kind}\` without storing anything, and whether or not the id exists: ` +
      'for an editor that shows problems while the user types.',
    ...auth(SCOPES.policyWrite),
    requestBody: xml(`the ${kind} XML`),
    responses: {
      200: { description: '`true`: an add would accept it', content: { 'application/json': { schema: { type: 'boolean' } } } },
      400: problem('`invalid_policy`: the same problem an add answers, every error with line and column'),
      413: problem('body over 5 MiB'),
      415: problem('not `application/xml` or `text/xml`'),
      ...common,
    },
  },
});

const replica = {
  type: 'object',
  required: ['replica', 'ready', 'revision', 'lag', 'lagMs', 'pendingChanges', 'natsConnected', 'lastSeenAt', 'stale'],
  properties: {
    replica: { type: 'string', description: 'PDP_REPLICA_ID' },
    ready: { type: 'boolean' },
    revision: { type: ['integer', 'null'], description: 'revision of the replica\'s active set' },
    lag: { type: ['integer', 'null'], description: 'revisions behind pap' },
    lagMs: { type: ['integer', 'null'], description: 'arrival to application of its last applied change' },
    pendingChanges: { type: 'integer' },
    natsConnected: { type: 'boolean' },
    lastSeenAt: { type: 'string', format: 'date-time', description: 'when pap received its last report' },
    stale: { type: 'boolean', description: 'silent for over three report intervals' },
  },
};

export const consoleOpenapiPaths = {
  '/ws/policy/validate': dryRun('policy'),
  '/ws/timer/validate': dryRun('timer'),
  '/ws/replicas': {
    get: {
      summary: 'the pdp replicas and their active revisions',
      description: 'Every replica that reported over NATS in the last minute, by name, with how far it is behind pap.',
      ...auth(SCOPES.policyRead),
      responses: {
        200: {
          description: "pap's revision and the replicas",
          content: {
            'application/json': {
              schema: { type: 'object', required: ['revision', 'replicas'], properties: { revision: { type: 'integer' }, replicas: { type: 'array', items: replica } } },
            },
          },
        },
        ...common,
      },
    },
  },
  '/console': {
    get: {
      summary: 'the web console',
      description: 'One HTML page (hash-routed) and its assets under `/console/assets/`, under a CSP of pap\'s own origin.',
      responses: { 200: { description: 'HTML' }, 404: problem('pap was built without the console') },
    },
  },
  '/console/token': {
    post: {
      summary: "the console's token request, forwarded to auth's `/oauth/token`",
      description: 'Body and Basic credentials as `/oauth/token` takes them; its answer comes back unchanged apart from `WWW-Authenticate`.',
      requestBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: { type: 'string' } } } },
      responses: {
        200: { description: "auth's token answer" },
        400: { description: "auth's OAuth error" },
        401: { description: "auth's OAuth error (`invalid_client`)" },
        415: problem('not a form'),
        502: problem('auth could not be reached'),
        504: problem('auth did not answer in time'),
      },
    },
  },
  '/console/explain': {
    post: {
      summary: "the console's explanation, forwarded to a pdp's `/event/explain` (`PDP_URL`)",
      description:
        "With the caller's token and `Min-Policy-Revision`. Answers the pdp's explained decision and the event after its " +
        'modifiers as the PEP SDK applies them; a pdp error is passed on unchanged.',
      ...auth(SCOPES.eventDecide),
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', description: 'an Event (api.md §3)' } } } },
      responses: {
        200: {
          description: 'the explanation',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['revision', 'decision', 'modifiedEvent', 'modifyError'],
                properties: {
                  revision: { type: ['integer', 'null'] },
                  decision: { type: 'object', description: "the pdp's `/event/explain` answer" },
                  modifiedEvent: { type: ['object', 'null'], description: 'the event after the modifiers; null without any' },
                  modifyError: { type: ['string', 'null'], description: 'why the modifiers could not be applied' },
                },
              },
            },
          },
        },
        415: problem('not JSON'),
        502: problem('the pdp could not be reached'),
        503: problem("the pdp's answer: no policy set yet, or `Min-Policy-Revision` not reached"),
        504: problem('the pdp did not answer in time'),
        ...common,
      },
    },
  },
} as const;
