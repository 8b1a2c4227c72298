import { ERROR_CODES, SCOPES } from '@custos/contracts';
import { HttpProblem, problems } from '@custos/service-kit';
import type { DocumentKind } from '../documents/kind';
import type { DocumentMetadata } from '../store/documents';
import { documentIdParam, papRoute } from './context';
import { resourceSchemaName } from './document-context';
import { badId, common, problem, ref } from './responses';

const REPRESENTATIONS = ['application/json', 'application/xml', 'text/xml'];

/** `GET /ws/policy|timer/{id}`: the document as JSON, or with `Accept: application/xml` the XML as stored; 404 if unknown. */
export const showDocument = <M extends DocumentMetadata, R>(kind: DocumentKind<M, R>) =>
  papRoute({
    method: 'get',
    path: `/ws/${kind.name}/{id}`,
    summary: `show a ${kind.name}`,
    description: `The ${resourceSchemaName(kind)} as JSON; with \`Accept: application/xml\` (or \`text/xml\`) the XML as stored.`,
    scope: SCOPES.policyRead,
    params: { id: documentIdParam(kind.name, SCOPES.policyRead) },
    responses: {
      200: {
        description: `the ${kind.name}`,
        content: {
          'application/json': { schema: ref(resourceSchemaName(kind)) },
          'application/xml': { schema: { type: 'string' } },
          'text/xml': { schema: { type: 'string' } },
        },
      },
      400: badId,
      404: problem(`no such ${kind.name}`),
      406: problem('`not_acceptable`: none of JSON or XML is acceptable'),
      ...common,
    },
    handler: async (req, res, { deps, params }) => {
      const representation = req.accepts(REPRESENTATIONS);
      if (representation === false) {
        throw new HttpProblem(
          406,
          ERROR_CODES.notAcceptable,
          `a ${kind.name} is available as ${REPRESENTATIONS.map((t) => `\`${t}\``).join(', ')}`,
        );
      }
      const { id } = params.id;
      const row = await deps.storeOf(kind).find(id);
      if (!row) throw problems.notFound(`no ${kind.name} \`${id}\``);
      res.vary('Accept');
      if (representation === 'application/json') {
        res.json(kind.toResource(row));
      } else {
        res.type(representation).send(row.xml);
      }
    },
  });
