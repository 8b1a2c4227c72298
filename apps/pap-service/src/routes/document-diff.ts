import { SCOPES } from '@custos/contracts';
import { problems } from '@custos/service-kit';
import type { DocumentKind } from '../documents/kind';
import type { DocumentMetadata } from '../store/documents';
import { documentIdParam, papRoute } from './context';
import { versionParam } from './document-versions';
import { common, problem } from './responses';
import { MAX_EDIT_LINES, unifiedDiff } from './unified-diff';

/** `GET /ws/policy|timer/{id}/diff?from=n[&to=m]`: a unified diff from one version's text to another's. */
export const diffVersions = <M extends DocumentMetadata, R>(kind: DocumentKind<M, R>) =>
  papRoute({
    method: 'get',
    path: `/ws/${kind.name}/{id}/diff`,
    summary: `diff two versions of a ${kind.name}`,
    description:
      `A unified diff (3 lines of context) from the text of version \`from\` to that of version \`to\` (default: the ` +
      'current version), as `text/plain`; no hunks when the texts are the same. Files are named `<id>@v<n>`. Texts ' +
      `that differ in more than ${MAX_EDIT_LINES} lines get one hunk replacing every line.`,
    scope: SCOPES.policyRead,
    params: { id: documentIdParam(kind.name, SCOPES.policyRead) },
    query: {
      from: { ...versionParam('the older version (the `---` side)'), required: true },
      to: versionParam('the newer version (the `+++` side); default the current one'),
    },
    responses: {
      200: { description: 'the unified diff', content: { 'text/plain': { schema: { type: 'string' } } } },
      400: problem('`invalid_id`, or `invalid_request`: `from` missing, or `from`/`to` not a version number'),
      404: problem(`no such ${kind.name}, or no such version of it`),
      ...common,
    },
    handler: async (_req, res, { deps, params, query }) => {
      const { id } = params.id;
      const store = deps.storeOf(kind);
      const to = query.to ?? (await store.versions(id))?.versions.at(-1)?.number;
      if (to === undefined) throw problems.notFound(`no ${kind.name} \`${id}\``);
      const [older, newer] = await Promise.all([store.version(id, query.from), store.version(id, to)]);
      if (!older) throw problems.notFound(`no version ${query.from} of ${kind.name} \`${id}\``);
      if (!newer) throw problems.notFound(`no version ${to} of ${kind.name} \`${id}\``);
      const patch = unifiedDiff(`${id}@v${older.number}`, `${id}@v${newer.number}`, older.xml, newer.xml);
      res.setHeader('Cache-Control', 'no-store');
      res.type('text/plain').send(patch);
    },
  });
