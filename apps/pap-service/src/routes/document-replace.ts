import { ERROR_CODES, SCOPES } from '@custos/contracts';
import { problems, requireScope, xmlBody } from '@custos/service-kit';
import { DOCUMENT_BODY_LIMIT } from '../documents/kind';
import { documentIdOf, documentIdParam, sendBoolean } from './context';
import type { DocumentRouteFactory } from './document-context';

/**
 * `PUT /ws/policy|timer/{id}` (XML with the same id): replaces the document's text. A deployed one is re-deployed
 * atomically with a new revision (answered in `Policy-Revision`).
 */
export const replaceDocument: DocumentRouteFactory = ({ verifier, kind, store }) => [
  requireScope(verifier, SCOPES.policyWrite),
  documentIdParam(kind.name, SCOPES.policyWrite),
  xmlBody(DOCUMENT_BODY_LIMIT),
  async (req, res) => {
    const { id } = documentIdOf(res);
    const record = kind.validate(req.body as string);
    if (record.id !== id) {
      throw problems.badRequest(ERROR_CODES.invalidPolicy, `the ${kind.name} id in the body differs from the id in the URL`, [
        { message: `the ${kind.name} id \`${record.id}\` does not match \`${id}\` of the URL` },
      ]);
    }
    const outcome = await store.replace(record);
    if (!outcome.found) throw problems.notFound(`no ${kind.name} \`${id}\``);
    sendBoolean(res, true, outcome.revision);
  },
];
