import { Type, type Static } from '@sinclair/typebox';
import { stringOf } from './schema-kit';

/**
 * JSON Schemas (TypeBox; the draft 2020-12 subset ajv compiles) of the decision and its modifiers, the types read off
 * them. They live here because they are part of the wire contract: the pdp answers by them, its OpenAPI document
 * shows them and the SDK reads them, so the three cannot drift apart. The event's are in event.ts.
 */

/** The Java type names the pdp gives the values it answers with (modifier parameters, explanations). */
export const ANSWERED_VALUE_TYPES = ['java.lang.String', 'java.lang.Double', 'java.lang.Boolean', 'java.lang.Object', 'java.util.ArrayList'] as const;

/** A typed value in a pdp answer: unlike a request's, every field is there and the type is one of the above. */
export const answeredValueSchema = Type.Object({
  value: Type.Unknown({ description: 'the value; objects and lists are JSON' }),
  type: stringOf(ANSWERED_VALUE_TYPES),
  isComplex: Type.Boolean({ description: 'true for objects and lists' }),
});

const answeredParameterSchema = Type.Object({ name: Type.String(), value: answeredValueSchema });

const modifierEngineSchema = Type.Object({ method: Type.String(), parameters: Type.Array(answeredParameterSchema) });

/** One modifier of a decision (api.md §3). */
export const modifierSchema = Type.Object({
  name: Type.String({ description: 'the event parameter to modify' }),
  expression: Type.String({ description: 'the jsonPathQuery, `$` when absent' }),
  engine: Type.Array(modifierEngineSchema, { minItems: 1, maxItems: 1 }),
});

export type ModifierEngine = Static<typeof modifierEngineSchema>;

/**
 * A modifier as its schema says it, with `engine` typed as what its `minItems`/`maxItems` make it, a one-element
 * tuple (TypeBox says tuples only as `prefixItems`, which the OpenAPI tools and ajv's default draft read differently).
 */
export type Modifier = Omit<Static<typeof modifierSchema>, 'engine'> & { engine: [ModifierEngine] };

/** The modifier schema typed as `Modifier`, for the answers below and AuthZEN's context. */
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
