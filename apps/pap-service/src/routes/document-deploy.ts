import { SCOPES } from '@custos/contracts';
import type { DocumentKind } from '../documents/kind';
import type { DocumentMetadata } from '../store/documents';
import { audited } from './audited';
import { documentIdParam, papRoute, sendBoolean } from './context';
import { KIND_TEXT } from './document-context';
import { badId, booleanAnswer, common } from './responses';

/** `POST /ws/policy|timer/{id}/deploy`: `true` when deployed after the call (idempotent), `false` when no such document. */
export const deployDocument = <M extends DocumentMetadata, R>(kind: DocumentKind<M, R>) =>
  papRoute({
    method: 'post',
    path: `/ws/${kind.name}/{id}/deploy`,
    summary: `deploy a ${kind.name}`,
    ...(KIND_TEXT[kind.name].deploy === undefined ? {} : { description: KIND_TEXT[kind.name].deploy }),
    scope: SCOPES.policyWrite,
    params: { id: documentIdParam(kind.name, SCOPES.policyWrite) },
    responses: {
      200: booleanAnswer(`\`true\` when deployed after the call (idempotent), \`false\` when no such ${kind.name}`, true),
      400: badId,
      ...common,
    },
    handler: async (_req, res, { deps, params }) => {
      const outcome = await deps.storeOf(kind).deploy(params.id.id, audited(deps, res, (done) => (done.changed ? { revision: done.revision } : undefined)));
      sendBoolean(res, outcome.result, outcome.revision);
    },
  });
