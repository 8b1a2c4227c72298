import { SCOPES } from '@custos/contracts';
import { foreignSolution, principalOf, problems, requireScope, xmlBody } from '@custos/service-kit';
import { DOCUMENT_BODY_LIMIT } from '../documents/kind';
import { sendBoolean } from './context';
import type { DocumentRouteFactory } from './document-context';

/** `POST /ws/policy|timer` (XML): stores a new, undeployed document. 201 `true` with `Location`; 409 if the id exists. */
export const addDocument: DocumentRouteFactory = ({ verifier, kind, store }) => [
  requireScope(verifier, SCOPES.policyWrite),
  xmlBody(DOCUMENT_BODY_LIMIT),
  async (req, res) => {
    const record = kind.validate(req.body as string);
    // Checked before the duplicate test, so a foreign id is never confirmed to exist.
    if (!principalOf(res).mayAccess(record.solution)) throw foreignSolution(SCOPES.policyWrite);
    if (!(await store.insert(record))) {
      throw problems.conflict(`a ${kind.name} \`${record.id}\` exists already; replace it with PUT`);
    }
    res.setHeader('Location', `/ws/${kind.name}/${record.id}`);
    sendBoolean(res, true, undefined, 201);
  },
];
