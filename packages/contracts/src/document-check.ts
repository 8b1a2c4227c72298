import { Type, type Static } from '@sinclair/typebox';
import { problemErrorSchema } from './problem';

/**
 * The answer of pap's `POST /ws/policy|timer/validate`: a check is a question, so a document an add would refuse is
 * still a 200, with the problems the add's 400 `invalid_policy` would list (api.md, "Dry runs").
 */
export const documentCheckSchema = Type.Object(
  {
    valid: Type.Boolean({ description: '`true` when an add would accept the document (apart from an id that exists)' }),
    code: Type.Optional(Type.String({ description: "the add's problem code when not valid: `invalid_policy`", examples: ['invalid_policy'] })),
    detail: Type.Optional(Type.String({ description: "the add's problem detail when not valid" })),
    errors: Type.Array(problemErrorSchema, { description: 'every problem an add would answer, located by line and column; empty when valid' }),
  },
  { description: 'what an add would say of the document' },
);
export type DocumentCheck = Static<typeof documentCheckSchema>;
