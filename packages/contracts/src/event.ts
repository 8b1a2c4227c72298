import { Type, type Static } from '@sinclair/typebox';
import { exactlyOneOf } from './schema-kit';

/**
 * The event of POST /event (api.md §3), said once as JSON Schema (TypeBox): the services validate requests with these
 * objects (ajv), their OpenAPI documents show them, and the types below are read off them. Unknown fields are
 * allowed everywhere, as peers send them.
 */

const TOKEN = '^[A-Za-z0-9._-]+$';

export const MAX_EVENT_PARAMETERS = 1000;

/** A typed value as enforcement points send it; `type` is a Java-style name and only informational. */
export const parameterValueSchema = Type.Object(
  {
    value: Type.Unknown(),
    type: Type.Optional(Type.String({ maxLength: 512 })),
    isComplex: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);

export const eventParameterSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 256 }),
    value: parameterValueSchema,
  },
  { additionalProperties: true },
);

/** Either the split form or the compatible `{urn}` form of api.md §3. */
const actionIdSchema = exactlyOneOf([
  Type.Object({
    scope: Type.String({ minLength: 1, maxLength: 128, pattern: '^[a-z0-9._-]+$' }),
    action: Type.String({ minLength: 1, maxLength: 256, pattern: TOKEN }),
  }),
  Type.Object({
    urn: Type.String({ maxLength: 400, pattern: '^urn:action:[a-z0-9._-]+:[A-Za-z0-9._-]+$' }),
  }),
]);

export const eventSchema = Type.Object(
  {
    actionId: actionIdSchema,
    timestamp: Type.Integer({ minimum: 0, maximum: 8640000000000000 }),
    parameters: Type.Optional(Type.Array(eventParameterSchema, { maxItems: MAX_EVENT_PARAMETERS })),
  },
  { additionalProperties: true },
);

/** An event as the schema admits it: what the pdp decodes (event-codec.ts), whoever sent it. */
export type AcceptedEvent = Static<typeof eventSchema>;
export type AcceptedParameterValue = Static<typeof parameterValueSchema>;

// The event as Custos' own clients write it: the fields a peer may leave out (a value's `type` and `isComplex`, an
// event's `parameters`) are always there.

export type ParameterValue = Required<Static<typeof parameterValueSchema>>;
export type EventParameter = Static<typeof eventParameterSchema> & { value: ParameterValue };
export type ActionId = Static<typeof actionIdSchema>;
export type Event = Static<typeof eventSchema> & { parameters: EventParameter[] };
