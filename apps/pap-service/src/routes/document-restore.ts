import { Type } from '@sinclair/typebox';
import { documentRestoreAnswerSchema, ERROR_CODES, HEADERS, SCOPES, type DocumentRestoreAnswer } from '@custos/contracts';
import { jsonResponse, problems } from '@custos/service-kit';
import type { DocumentKind } from '../documents/kind';
import type { DocumentMetadata } from '../store/documents';
import { authorOf } from './author';
import { audited, revisionOf } from './audited';
import { documentIdParam, papRoute } from './context';
import { versionParam } from './document-versions';
import { common, problem, REVISION_HEADER } from './responses';

/**
 * `POST /ws/policy|timer/{id}/versions/{n}/restore[?deploy=true]`: rollback without rewriting history. Version n's
 * text is checked again (the engine may have changed since), stored as a new version and, when asked, deployed:
 * one transaction, and at most one revision, so every pdp switches to the old text at once.
 */
export const restoreVersion = <M extends DocumentMetadata, R>(kind: DocumentKind<M, R>) =>
  papRoute({
    method: 'post',
    path: `/ws/${kind.name}/{id}/versions/{n}/restore`,
    summary: `restore a version of a ${kind.name}`,
    description:
      `Makes the text of version \`n\` the current one as a new version (history is never rewritten). A deployed ` +
      `${kind.name} is re-deployed with it; with \`deploy=true\` an undeployed one is deployed too. All of it is one ` +
      'transaction and at most one revision (answered, and in `Policy-Revision` when the deployed set changed).',
    scope: SCOPES.policyWrite,
    params: { id: documentIdParam(kind.name, SCOPES.policyWrite), n: versionParam('the version whose text becomes current') },
    query: {
      deploy: {
        schema: Type.Boolean(),
        description: `\`true\`: deploy the ${kind.name} if it is not deployed (default \`false\`: a deployed one stays deployed, an undeployed one stays undeployed)`,
        normalize: (text: string) => (text === 'true' ? true : text === 'false' ? false : text),
        invalid: (text: string) =>
          problems.badRequest(ERROR_CODES.invalidRequest, `\`deploy\` must be \`true\` or \`false\`, got \`${text.slice(0, 40)}\``, [
            { path: 'query.deploy', message: 'must be `true` or `false`' },
          ]),
      },
    },
    responses: {
      200: jsonResponse('the new version, whether deployed, and the revision after the restore', documentRestoreAnswerSchema, REVISION_HEADER),
      400: problem("`invalid_id`; `invalid_request` (`n` or `deploy`); or `invalid_policy`: the version's text no longer passes the checks (nothing changed)"),
      404: problem(`no such ${kind.name}, or no such version of it`),
      ...common,
    },
    handler: async (_req, res, { deps, params, query }) => {
      const { id } = params.id;
      const store = deps.storeOf(kind);
      const version = await store.version(id, params.n);
      if (!version) throw problems.notFound(`no version ${params.n} of ${kind.name} \`${id}\``);
      const record = kind.validate(version.xml);
      const outcome = await store.restore(record, query.deploy === true, authorOf(res), audited(deps, res, (done) => (done.found ? { revision: revisionOf(done) } : undefined)));
      // Removed between the read and the restore.
      if (!outcome.found) throw problems.notFound(`no ${kind.name} \`${id}\``);
      if (outcome.changed) res.setHeader(HEADERS.policyRevision, String(outcome.revision));
      const answer: DocumentRestoreAnswer = { version: outcome.version, deployed: outcome.deployed, revision: outcome.revision, changed: outcome.changed };
      res.json(answer);
    },
  });
