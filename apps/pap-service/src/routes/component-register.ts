import { HEADERS, SCOPES, componentSchema, formatWarning } from '@custos/contracts';
import { AuditLog, foreignSolution, principalOf } from '@custos/service-kit';
import { upsertComponent } from '../store/components';
import { validateComponent } from './component-schema';
import { audited, revisionOf } from './audited';
import { papRoute, sendBoolean } from './context';
import { booleanAnswer, common, problem, ref, REVISION_HEADER } from './responses';

export const COMPONENT_BODY_LIMIT = 1024 * 1024;

/**
 * `POST /ws/component`: registers a component; the same id again replaces it. Answers `true`, with
 * `Policy-Revision`: a new or changed PIP/PXP gets a revision (the pdps call them), anything else answers the
 * current one; and a `Custos-Warning` line per URL the pdps' default egress policy refuses to call.
 */
export const registerComponent = papRoute({
  method: 'post',
  path: '/ws/component',
  summary: 'register a component',
  description:
    'Registers a component; the same identifier again replaces it. `componentType` must equal the type segment ' +
    'of the identifier; URLs may be http, https or rmi; PIP methods are `urn:info:<solution>:<m>` or bare names, ' +
    "PXP methods `urn:action:<solution>:<a>` of the component's own solution. A PIP's or PXP's http(s) URL with " +
    'user information is refused (no pdp ever calls it); one that a pdp with the default egress policy (public ' +
    'addresses only, docs/security.md) refuses to call is registered with a `Custos-Warning`. Host names are not ' +
    'resolved here: the pdp checks what they resolve to when it calls them.',
  scope: SCOPES.componentWrite,
  // The envelope, then the interfaces against the type's shape, then the rules no schema states.
  body: { media: 'json', limit: COMPONENT_BODY_LIMIT, schema: componentSchema, documentAs: ref('Component'), parse: validateComponent },
  responses: {
    200: {
      ...booleanAnswer('`true`; `Policy-Revision`: a new or changed PIP/PXP gets a new revision (it travels to the pdps), anything else the current one'),
      headers: {
        ...REVISION_HEADER,
        'Custos-Warning': {
          description:
            'one line per URL a pdp without `PDP_CALL_ALLOW` refuses to call (at most 8, then one saying how many more): an ' +
            'RFC 8941 string, the message, with the parameters `code` (`egress_refused_by_default`) and `path` (e.g. `urls[0]`)',
          schema: { type: 'string' },
          example: '"a pdp with the default egress policy does not call this url: ...";code="egress_refused_by_default";path="urls[0]"',
        },
      },
    },
    400: problem('`malformed_json` or `invalid_component` with the path of every problem (user information in a PIP/PXP URL included)'),
    413: problem('body over 1 MiB'),
    415: problem('not `application/json`'),
    ...common,
  },
  handler: async (_req, res, { deps, body }) => {
    const { component, solution, warnings } = body;
    AuditLog.target(res, component.id.identifier);
    if (!principalOf(res).mayAccess(solution)) throw foreignSolution(SCOPES.componentWrite);
    const outcome = await upsertComponent(deps.pool, deps.onDeployedSetChange, solution, component, audited(deps, res, (done) => ({ target: component.id.identifier, revision: revisionOf(done) })));
    for (const warning of warnings) res.append(HEADERS.warning, formatWarning(warning));
    sendBoolean(res, true, outcome.revision);
  },
});
