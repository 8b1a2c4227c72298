import { ERROR_CODES, SCOPES, documentCheckSchema, type DocumentCheck } from '@custos/contracts';
import { HttpProblem, foreignSolution, jsonResponse, principalOf } from '@custos/service-kit';
import { DOCUMENT_BODY_LIMIT, type DocumentKind } from '../documents/kind';
import type { DocumentMetadata, DocumentRecord } from '../store/documents';
import { papRoute } from './context';
import { KIND_TEXT } from './document-context';
import { common, problem } from './responses';

/**
 * What an add would say of `body`: the record, or the problems of its 400 `invalid_policy`. Any other failure
 * (none is expected from reading a document) stays an error.
 */
function check<M extends DocumentMetadata>(validate: (xml: string) => DocumentRecord<M>, body: string): { record: DocumentRecord<M> } | { refused: DocumentCheck } {
  try {
    return { record: validate(body) };
  } catch (error) {
    if (!(error instanceof HttpProblem) || error.code !== ERROR_CODES.invalidPolicy) throw error;
    // toProblem() bounds the list as the add's answer does.
    const { code, detail, errors = [] } = error.toProblem();
    return { refused: { valid: false, code, detail, errors } };
  }
}

/**
 * `POST /ws/policy|timer/validate` (XML): a dry run of an add. A check is a question, not a failed request, so the
 * answer is a 200 either way: `{valid: true, errors: []}`, or `valid: false` with the problems the add's 400
 * `invalid_policy` lists, each located; the console calls it on every keystroke and a browser logs every 4xx. The
 * request itself can still fail: 403 for a solution the token does not cover, 413, 415. Stores nothing.
 */
export const validateDocument = <M extends DocumentMetadata, R>(kind: DocumentKind<M, R>) =>
  papRoute({
    method: 'post',
    path: `/ws/${kind.name}/validate`,
    summary: `check a ${kind.name} as an add would, storing nothing`,
    description:
      `The checks and scope of \`POST /ws/${kind.name}\` without storing anything, and whether or not the id exists: ` +
      "for an editor that shows problems while the user types. A refused document is a 200 with `valid: false` and the add's located problems.",
    scope: SCOPES.policyWrite,
    body: { media: 'xml', limit: DOCUMENT_BODY_LIMIT, description: KIND_TEXT[kind.name].body },
    responses: {
      200: jsonResponse("`valid`, and every problem an add would answer (`errors`, with line and column)", documentCheckSchema),
      413: problem('body over 5 MiB'),
      415: problem('not `application/xml` or `text/xml`'),
      ...common,
    },
    handler: (_req, res, { body }) => {
      const outcome = check((xml) => kind.validate(xml), body);
      if ('record' in outcome && !principalOf(res).mayAccess(outcome.record.solution)) throw foreignSolution(SCOPES.policyWrite);
      res.setHeader('Cache-Control', 'no-store');
      const answer: DocumentCheck = 'record' in outcome ? { valid: true, errors: [] } : outcome.refused;
      res.json(answer);
    },
  });
