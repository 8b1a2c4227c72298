import { Type } from '@sinclair/typebox';
import { documentVersionsSchema, documentVersionTextSchema, ERROR_CODES, SCOPES, type DocumentVersions, type DocumentVersionText } from '@custos/contracts';
import { HttpProblem, jsonResponse, problems } from '@custos/service-kit';
import type { DocumentKind } from '../documents/kind';
import type { DocumentMetadata } from '../store/documents';
import type { VersionRow } from '../store/versions';
import { documentIdParam, papRoute } from './context';
import { badId, common, problem } from './responses';

/** Versions are numbered from 1; a PostgreSQL integer bounds them. */
const MAX_VERSION = 2_147_483_647;

/** A version number in a path or query: digits only (`1e3`, ` 5`, `0x10` are not numbers of a version). */
export const versionParam = (description: string) => ({
  schema: Type.Integer({ minimum: 1, maximum: MAX_VERSION }),
  description,
  normalize: (text: string) => (/^\d{1,10}$/.test(text) ? Number(text) : text),
  invalid: (text: string) =>
    problems.badRequest(ERROR_CODES.invalidRequest, `\`${text.slice(0, 40)}\` is not a version number`, [
      { message: `must be an integer from 1 to ${MAX_VERSION}` },
    ]),
});

const facts = (row: VersionRow) => ({
  number: row.number,
  clientId: row.client_id,
  requestId: row.request_id,
  createdAt: row.created_at.toISOString(),
});

/** `GET /ws/policy|timer/{id}/versions`: every text the document was stored with, oldest first. */
export const listVersions = <M extends DocumentMetadata, R>(kind: DocumentKind<M, R>) =>
  papRoute({
    method: 'get',
    path: `/ws/${kind.name}/{id}/versions`,
    summary: `list the versions of a ${kind.name}`,
    description:
      `Every text the ${kind.name} was stored with (added, replaced, restored), oldest first, with who stored it (the ` +
      "token's client id), when, and the request id; `current` marks the text stored now, `deployed` the one the pdps " +
      `decide with (the current one of a deployed ${kind.name}). Removing the ${kind.name} removes its history.`,
    scope: SCOPES.policyRead,
    params: { id: documentIdParam(kind.name, SCOPES.policyRead) },
    responses: {
      200: jsonResponse(`the versions of the ${kind.name}`, documentVersionsSchema),
      400: badId,
      404: problem(`no such ${kind.name}`),
      ...common,
    },
    handler: async (_req, res, { deps, params }) => {
      const { id } = params.id;
      const history = await deps.storeOf(kind).versions(id);
      if (history === undefined) throw problems.notFound(`no ${kind.name} \`${id}\``);
      const last = history.versions.at(-1)?.number;
      const answer: DocumentVersions = {
        id: { identifier: id },
        versions: history.versions.map((row) => ({ ...facts(row), current: row.number === last, deployed: row.number === last && history.deployed })),
      };
      res.setHeader('Cache-Control', 'no-store');
      res.json(answer);
    },
  });

const REPRESENTATIONS = ['application/json', 'application/xml', 'text/xml'];

/** `GET /ws/policy|timer/{id}/versions/{n}`: one version with its text, or with `Accept: application/xml` the text alone. */
export const showVersion = <M extends DocumentMetadata, R>(kind: DocumentKind<M, R>) =>
  papRoute({
    method: 'get',
    path: `/ws/${kind.name}/{id}/versions/{n}`,
    summary: `show a version of a ${kind.name}`,
    description: `Version \`n\` of the ${kind.name} as JSON (who, when, request id, text); with \`Accept: application/xml\` (or \`text/xml\`) its text as stored.`,
    scope: SCOPES.policyRead,
    params: { id: documentIdParam(kind.name, SCOPES.policyRead), n: versionParam('the version number') },
    responses: {
      200: {
        description: 'the version',
        content: {
          'application/json': { schema: documentVersionTextSchema },
          'application/xml': { schema: { type: 'string' } },
          'text/xml': { schema: { type: 'string' } },
        },
      },
      400: problem('`invalid_id`, or `invalid_request`: `n` is not a version number'),
      404: problem(`no such ${kind.name}, or no such version of it`),
      406: problem('`not_acceptable`: none of JSON or XML is acceptable'),
      ...common,
    },
    handler: async (req, res, { deps, params }) => {
      const representation = req.accepts(REPRESENTATIONS);
      if (representation === false) {
        throw new HttpProblem(406, ERROR_CODES.notAcceptable, `a version is available as ${REPRESENTATIONS.map((t) => `\`${t}\``).join(', ')}`);
      }
      const { id } = params.id;
      const row = await deps.storeOf(kind).version(id, params.n);
      if (!row) throw problems.notFound(`no version ${params.n} of ${kind.name} \`${id}\``);
      res.vary('Accept');
      if (representation !== 'application/json') {
        res.type(representation).send(row.xml);
        return;
      }
      const answer: DocumentVersionText = { ...facts(row), xml: row.xml };
      res.json(answer);
    },
  });
