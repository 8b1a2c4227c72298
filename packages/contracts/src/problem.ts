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
export interface ProblemError {
  message: string;
  line?: number;
  column?: number;
  path?: string;
}

/** RFC 9457 problem details as every Custos service sends them. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: ProblemError[];
  instance?: string;
}
