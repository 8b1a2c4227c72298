import { SCOPES } from '@custos/contracts';
import { foreignSolution, principalOf, requireScope, xmlBody } from '@custos/service-kit';
import { DOCUMENT_BODY_LIMIT } from '../documents/kind';
import { sendBoolean } from './context';
import type { DocumentRouteFactory } from './document-context';

/**
 * `POST /ws/policy|timer/validate` (XML): a dry run of an add. The same scope, the same checks and the same 400
 * `invalid_policy` with every problem located, or 403 for a solution the token does not cover; `true` when an add
 * would accept the document (apart from an id that exists). Stores nothing: the console calls it as the user types.
 */
export const validateDocument: DocumentRouteFactory = ({ verifier, kind }) => [
  requireScope(verifier, SCOPES.policyWrite),
  xmlBody(DOCUMENT_BODY_LIMIT),
  (req, res) => {
    const record = kind.validate(req.body as string);
    if (!principalOf(res).mayAccess(record.solution)) throw foreignSolution(SCOPES.policyWrite);
    res.setHeader('Cache-Control', 'no-store');
    sendBoolean(res, true);
  },
];
