import { Type, type Static } from '@sinclair/typebox';
import type { Modifier } from './decision';


/**
 * JSON Schemas (draft 2020-12 subset that ajv compiles) of request bodies and of the decision.
 * They live here because they are part of the wire contract: the services validate with them and
 * their OpenAPI documents show them, so the two cannot drift apart.
 */
const TOKEN = '^[A-Za-z0-9._-]+$';

export const parameterValueSchema = {
  type: 'object',
  required: ['value'],
  properties: {
    value: {},
    type: { type: 'string', maxLength: 512 },
    isComplex: { type: 'boolean' },
  },
  additionalProperties: true,
} as const;

export const eventParameterSchema = {
  type: 'object',
  required: ['name', 'value'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 256 },
    value: parameterValueSchema,
  },
  additionalProperties: true,
} as const;

export const MAX_EVENT_PARAMETERS = 1000;

export const eventSchema = {
  type: 'object',
  required: ['actionId', 'timestamp'],
  properties: {
    actionId: {
      oneOf: [
        {
          type: 'object',
          required: ['scope', 'action'],
          properties: {
            scope: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[a-z0-9._-]+$' },
            action: { type: 'string', minLength: 1, maxLength: 256, pattern: TOKEN },
          },
        },
        {
          type: 'object',
          required: ['urn'],
          properties: {
            urn: { type: 'string', maxLength: 400, pattern: '^urn:action:[a-z0-9._-]+:[A-Za-z0-9._-]+$' },
          },
        },
      ],
    },
    timestamp: { type: 'integer', minimum: 0, maximum: 8640000000000000 },
    parameters: { type: 'array', maxItems: MAX_EVENT_PARAMETERS, items: eventParameterSchema },
  },
  additionalProperties: true,
} as const;

/** The Java type names the pdp gives the values it answers with (modifier parameters, explanations). */
export const ANSWERED_VALUE_TYPES = ['java.lang.String', 'java.lang.Double', 'java.lang.Boolean', 'java.lang.Object', 'java.util.ArrayList'] as const;

/** A typed value in a pdp answer: unlike a request's, every field is there and the type is one of the above. */
export const answeredValueSchema = {
  type: 'object',
  required: ['value', 'type', 'isComplex'],
  properties: {
    value: { description: 'the value; objects and lists are JSON' },
    type: { type: 'string', enum: [...ANSWERED_VALUE_TYPES] },
    isComplex: { type: 'boolean', description: 'true for objects and lists' },
  },
} as const;

const answeredParameterSchema = {
  type: 'object',
  required: ['name', 'value'],
  properties: { name: { type: 'string' }, value: answeredValueSchema },
} as const;

/** One modifier of a decision (api.md §3). */
export const modifierSchema = {
  type: 'object',
  required: ['name', 'expression', 'engine'],
  properties: {
    name: { type: 'string', description: 'the event parameter to modify' },
    expression: { type: 'string', description: 'the jsonPathQuery, `$` when absent' },
    engine: {
      type: 'array',
      minItems: 1,
      maxItems: 1,
      items: {
        type: 'object',
        required: ['method', 'parameters'],
        properties: { method: { type: 'string' }, parameters: { type: 'array', items: answeredParameterSchema } },
      },
    },
  },
} as const;

/**
 * A modifier as the schemas above state it, typed as the `Modifier` interface: its `engine` is a one-element tuple,
 * which JSON Schema says as an array of one item (`minItems`/`maxItems`) and TypeBox only as `prefixItems`, which the
 * OpenAPI tools and ajv's default draft read differently. So the interface stays, and this carries it into the
 * TypeBox schemas of the answers below.
 */
export const modifierType = Type.Unsafe<Modifier>(modifierSchema);

/** The answer of POST /event (api.md §3). */
export const authorizationDecisionSchema = Type.Object({
  id: Type.Object({ identifier: Type.String({ pattern: '^urn:decision:[0-9a-f-]{36}$', description: '`urn:decision:` + UUIDv7' }) }),
  eventAllowed: Type.Boolean(),
  modifiers: Type.Array(modifierType, {
    description: 'one per `modify` of the allowing branches, ordered by policy id, mechanism, modify; empty when inhibited',
  }),
  delay: Type.Integer({ minimum: 0, description: 'milliseconds the enforcement point waits before releasing or dropping the event' }),
});
export type AuthorizationDecision = Static<typeof authorizationDecisionSchema>;
