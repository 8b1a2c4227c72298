import { SCOPES } from '@custos/contracts';
import { foreignSolution, principalOf } from '@custos/service-kit';
import { DOCUMENT_BODY_LIMIT, type DocumentKind } from '../documents/kind';
import type { DocumentMetadata } from '../store/documents';
import { papRoute, sendBoolean } from './context';
import { KIND_TEXT } from './document-context';
import { booleanAnswer, common, problem } from './responses';

/**
 * `POST /ws/policy|timer/validate` (XML): a dry run of an add. The same scope, the same checks and the same 400
 * `invalid_policy` with every problem located, or 403 for a solution the token does not cover; `true` when an add
 * would accept the document (apart from an id that exists). Stores nothing: the console calls it as the user types.
 */
export const validateDocument = <M extends DocumentMetadata, R>(kind: DocumentKind<M, R>) =>
  papRoute({
    method: 'post',
    path: `/ws/${kind.name}/validate`,
    summary: `check a ${kind.name} as an add would, storing nothing`,
    description:
      `The checks, scope and answers of \`POST /ws/${kind.name}\` without storing anything, and whether or not the id exists: ` +
      'for an editor that shows problems while the user types.',
    scope: SCOPES.policyWrite,
    body: { media: 'xml', limit: DOCUMENT_BODY_LIMIT, description: KIND_TEXT[kind.name].body },
    responses: {
      200: booleanAnswer('`true`: an add would accept it'),
      400: problem('`invalid_policy`: the same problem an add answers, every error with line and column'),
      413: problem('body over 5 MiB'),
      415: problem('not `application/xml` or `text/xml`'),
      ...common,
    },
    handler: (_req, res, { body }) => {
      const record = kind.validate(body);
      if (!principalOf(res).mayAccess(record.solution)) throw foreignSolution(SCOPES.policyWrite);
      res.setHeader('Cache-Control', 'no-store');
      sendBoolean(res, true);
    },
  });
