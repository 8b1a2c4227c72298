import { Type, type Static } from '@sinclair/typebox';
import { ALL_SCOPES, type Scope } from './scopes';
import { SOLUTION_PATTERN } from './urns';

/** The client administration of auth-service (`/clients`, and `custos clients create`). */

export const MAX_CLIENT_SOLUTIONS = 100;
export const MAX_CLIENT_DESCRIPTION = 1000;

const scopeSchema = Type.Unsafe<Scope>({ type: 'string', enum: [...ALL_SCOPES] });

const solutionsSchema = Type.Array(Type.String({ minLength: 1, maxLength: 128, pattern: `^(${SOLUTION_PATTERN}|\\*)$` }), {
  minItems: 1,
  maxItems: MAX_CLIENT_SOLUTIONS,
  uniqueItems: true,
});

/** POST /clients. */
export const createClientSchema = Type.Object(
  {
    // Typed with its bound, which callers read (TypeBox types every array option as optional).
    solutions: solutionsSchema as typeof solutionsSchema & { maxItems: number },
    scopes: Type.Array(scopeSchema, { minItems: 1, uniqueItems: true }),
    description: Type.Optional(Type.String({ maxLength: MAX_CLIENT_DESCRIPTION })),
  },
  { additionalProperties: false },
);
export type CreateClientBody = Static<typeof createClientSchema>;

/** A client as the admin API shows it (never with its secret). */
export const clientViewSchema = Type.Object({
  client_id: Type.String(),
  solutions: Type.Array(Type.String()),
  scopes: Type.Array(Type.String()),
  description: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
});
export type ClientView = Static<typeof clientViewSchema>;

/** POST /clients/{id}/secret: the optional options body. */
export const rotateOptionsSchema = Type.Object({ revoke_tokens: Type.Optional(Type.Boolean({ default: false })) }, { additionalProperties: false });
export type RotateOptions = Static<typeof rotateOptionsSchema>;

/** The answer of a rotation: the new secret, shown this once. */
export const rotatedSecretSchema = Type.Object({ client_id: Type.String(), client_secret: Type.String() });
export type RotatedSecret = Static<typeof rotatedSecretSchema>;
