import { Type, type Static } from '@sinclair/typebox';

/** Machine-readable error codes; `type` of a problem is `urn:custos:problem:<code>`. */
export const ERROR_CODES = {
  malformedJson: 'malformed_json',
  malformedXml: 'malformed_xml',
  invalidRequest: 'invalid_request',
  invalidPolicy: 'invalid_policy',
  invalidComponent: 'invalid_component',
  invalidEvent: 'invalid_event',
  invalidId: 'invalid_id',
  notFound: 'not_found',
  methodNotAllowed: 'method_not_allowed',
  conflict: 'conflict',
  payloadTooLarge: 'payload_too_large',
  unsupportedMediaType: 'unsupported_media_type',
  notAcceptable: 'not_acceptable',
  unauthorized: 'unauthorized',
  invalidToken: 'invalid_token',
  insufficientScope: 'insufficient_scope',
  tooManyRequests: 'too_many_requests',
  policyRevisionUnavailable: 'policy_revision_unavailable',
  serviceUnavailable: 'service_unavailable',
  internal: 'internal_error',
} as const;

export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export const problemType = (code: string): string => `urn:custos:problem:${code}`;

/** One located problem: a policy line/column or a JSON path into the request body. */
export const problemErrorSchema = Type.Object({
  message: Type.String(),
  line: Type.Optional(Type.Integer()),
  column: Type.Optional(Type.Integer()),
  path: Type.Optional(Type.String()),
});
export type ProblemError = Static<typeof problemErrorSchema>;

/** RFC 9457 problem details as every Custos error answer carries them (api.md §5). */
export const problemSchema = Type.Object(
  {
    type: Type.String({ description: '`urn:custos:problem:<code>`', examples: ['urn:custos:problem:invalid_policy'] }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    errors: Type.Optional(
      Type.Array(problemErrorSchema, { description: 'every problem found, located by line and column (policies) or path (JSON bodies)' }),
    ),
    instance: Type.Optional(Type.String()),
  },
  { description: 'RFC 9457 problem details' },
);
export type Problem = Static<typeof problemSchema>;
