import { ERROR_CODES, SCOPES } from '@custos/contracts';
import { HttpProblem, problems, requireScope } from '@custos/service-kit';
import { documentIdOf, documentIdParam } from './context';
import type { DocumentRouteFactory } from './document-context';

const REPRESENTATIONS = ['application/json', 'application/xml', 'text/xml'];

/** `GET /ws/policy|timer/{id}`: the document as JSON, or with `Accept: application/xml` the XML as stored; 404 if unknown. */
export const showDocument: DocumentRouteFactory = ({ verifier, kind, store }) => [
  requireScope(verifier, SCOPES.policyRead),
  documentIdParam(kind.name, SCOPES.policyRead),
  async (req, res) => {
    const representation = req.accepts(REPRESENTATIONS);
    if (representation === false) {
      throw new HttpProblem(
        406,
        ERROR_CODES.notAcceptable,
        `a ${kind.name} is available as ${REPRESENTATIONS.map((t) => `\`${t}\``).join(', ')}`,
      );
    }
    const { id } = documentIdOf(res);
    const row = await store.find(id);
    if (!row) throw problems.notFound(`no ${kind.name} \`${id}\``);
    res.vary('Accept');
    if (representation === 'application/json') {
      res.json(kind.toResource(row));
    } else {
      res.type(representation).send(row.xml);
    }
  },
];
