import { ERROR_CODES, SCOPES } from '@custos/contracts';
import { problems } from '@custos/service-kit';
import { DOCUMENT_BODY_LIMIT, type DocumentKind } from '../documents/kind';
import type { DocumentMetadata } from '../store/documents';
import { authorOf } from './author';
import { audited, revisionOf } from './audited';
import { documentIdParam, papRoute, sendBoolean } from './context';
import { KIND_TEXT } from './document-context';
import { booleanAnswer, common, problem } from './responses';

/**
 * `PUT /ws/policy|timer/{id}` (XML with the same id): replaces the document's text. A deployed one is re-deployed
 * atomically with a new revision (answered in `Policy-Revision`).
 */
export const replaceDocument = <M extends DocumentMetadata, R>(kind: DocumentKind<M, R>) =>
  papRoute({
    method: 'put',
    path: `/ws/${kind.name}/{id}`,
    summary: `replace a ${kind.name}`,
    description:
      `Replaces the text of an existing ${kind.name} (same id in URL and XML). A deployed ${kind.name} is re-deployed ` +
      'atomically with a new revision, answered in `Policy-Revision`.',
    scope: SCOPES.policyWrite,
    params: { id: documentIdParam(kind.name, SCOPES.policyWrite) },
    body: { media: 'xml', limit: DOCUMENT_BODY_LIMIT, description: KIND_TEXT[kind.name].body },
    responses: {
      200: booleanAnswer(`\`true\`; \`Policy-Revision\` when the ${kind.name} is deployed`, true),
      400: problem('`invalid_id`, `invalid_policy`, or the ids of URL and XML differ'),
      404: problem(`no such ${kind.name}`),
      413: problem('body over 5 MiB'),
      415: problem('not `application/xml` or `text/xml`'),
      ...common,
    },
    handler: async (_req, res, { deps, params, body }) => {
      const { id } = params.id;
      const record = kind.validate(body);
      if (record.id !== id) {
        throw problems.badRequest(ERROR_CODES.invalidPolicy, `the ${kind.name} id in the body differs from the id in the URL`, [
          { message: `the ${kind.name} id \`${record.id}\` does not match \`${id}\` of the URL` },
        ]);
      }
      const outcome = await deps.storeOf(kind).replace(record, authorOf(res), audited(deps, res, (done) => (done.found ? { revision: revisionOf(done) } : undefined)));
      if (!outcome.found) throw problems.notFound(`no ${kind.name} \`${id}\``);
      sendBoolean(res, true, outcome.revision);
    },
  });
