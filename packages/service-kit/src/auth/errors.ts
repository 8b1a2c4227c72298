import { ERROR_CODES } from '@custos/contracts';
import { HttpProblem } from '../http/problem';

const REALM = 'realm="custos"';

/** RFC 6750 §3: no credentials → a bare challenge. */
export const missingToken = () =>
  new HttpProblem(401, ERROR_CODES.unauthorized, 'a bearer token is required', undefined, {
    'WWW-Authenticate': `Bearer ${REALM}`,
  });

export const invalidToken = (why: string) =>
  new HttpProblem(401, ERROR_CODES.invalidToken, `the access token is not valid: ${why}`, undefined, {
    'WWW-Authenticate': `Bearer ${REALM}, error="invalid_token", error_description="${why.replace(/["\\]/g, '')}"`,
  });

export const insufficientScope = (scope: string, detail = `the token lacks the scope \`${scope}\``) =>
  new HttpProblem(403, ERROR_CODES.insufficientScope, detail, undefined, {
    'WWW-Authenticate': `Bearer ${REALM}, error="insufficient_scope", scope="${scope}"`,
  });

/**
 * A resource of a solution the caller may not see: the same answer whether or not it exists,
 * so foreign ids are never confirmed (api.md §2.2).
 */
export const foreignSolution = (scope: string) =>
  insufficientScope(scope, 'the token does not grant access to this solution');
