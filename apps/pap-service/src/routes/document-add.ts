import { SCOPES } from '@custos/contracts';
import { AuditLog, foreignSolution, principalOf, problems } from '@custos/service-kit';
import { DOCUMENT_BODY_LIMIT, type DocumentKind } from '../documents/kind';
import type { DocumentMetadata } from '../store/documents';
import { authorOf } from './author';
import { audited } from './audited';
import { papRoute, sendBoolean } from './context';
import { KIND_TEXT } from './document-context';
import { booleanAnswer, common, problem } from './responses';

/** `POST /ws/policy|timer` (XML): stores a new, undeployed document. 201 `true` with `Location`; 409 if the id exists. */
export const addDocument = <M extends DocumentMetadata, R>(kind: DocumentKind<M, R>) =>
  papRoute({
    method: 'post',
    path: `/ws/${kind.name}`,
    summary: `add a ${kind.name}`,
    description: KIND_TEXT[kind.name].add,
    scope: SCOPES.policyWrite,
    body: { media: 'xml', limit: DOCUMENT_BODY_LIMIT, description: KIND_TEXT[kind.name].body },
    responses: {
      201: { ...booleanAnswer('`true`'), headers: { Location: { description: `\`/ws/${kind.name}/{id}\``, schema: { type: 'string' } } } },
      400: problem(KIND_TEXT[kind.name].invalid),
      409: problem(`a ${kind.name} with this id exists`),
      413: problem('body over 5 MiB'),
      415: problem('not `application/xml` or `text/xml`'),
      ...common,
    },
    handler: async (_req, res, { deps, body }) => {
      const record = kind.validate(body);
      // Named in the trail from here on, also when the add is refused (a foreign solution, an id taken).
      AuditLog.target(res, record.id);
      // Checked before the duplicate test, so a foreign id is never confirmed to exist.
      if (!principalOf(res).mayAccess(record.solution)) throw foreignSolution(SCOPES.policyWrite);
      if (!(await deps.storeOf(kind).insert(record, authorOf(res), audited(deps, res, (inserted) => (inserted ? { target: record.id, status: 201 } : undefined))))) {
        throw problems.conflict(`a ${kind.name} \`${record.id}\` exists already; replace it with PUT`);
      }
      res.setHeader('Location', `/ws/${kind.name}/${record.id}`);
      sendBoolean(res, true, undefined, 201);
    },
  });
