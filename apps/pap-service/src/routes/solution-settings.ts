import type { Response } from 'express';
import {
  HEADERS,
  MAX_SOLUTION_NAME,
  SCOPES,
  solutionNameSchema,
  solutionSettingsAnswerSchema,
  solutionSettingsChangeAnswerSchema,
  solutionSettingsSchema,
  type SolutionSettings,
  type SolutionSettingsAnswer,
  type SolutionSettingsChangeAnswer,
} from '@custos/contracts';
import { foreignSolution, jsonResponse, principalOf, type ParamSpec } from '@custos/service-kit';
import { readSettings, writeSettings } from '../store/settings';
import { audited } from './audited';
import { invalidIdProblem, papRoute } from './context';
import { common, problem, REVISION_HEADER } from './responses';

/** Settings are a few short fields; anything larger is not a settings object. */
const SETTINGS_BODY_LIMIT = 4 * 1024;

/** `{solution}`: a solution name (400 `invalid_id` otherwise), and 403 when the token does not cover it. */
const solutionParam = (scope: string) =>
  ({
    schema: solutionNameSchema,
    description: 'the solution, e.g. `acme`',
    invalid: (text: string) =>
      invalidIdProblem(text, 'solution name', MAX_SOLUTION_NAME, 'lower-case letters, digits, `.`, `_` and `-`'),
    parse: (text: string, res: Response): string => {
      if (!principalOf(res).mayAccess(text)) throw foreignSolution(scope);
      return text;
    },
  }) satisfies ParamSpec;

const badSolution = problem('`invalid_id`: the solution in the URL is not a solution name');

/** `GET /ws/solutions/{solution}/settings` (scope `policy:read`): the solution's settings, `{}` when it has none. */
export const getSolutionSettings = papRoute({
  method: 'get',
  path: '/ws/solutions/{solution}/settings',
  summary: "a solution's settings",
  description:
    "The solution's default decisions as the pdps use them from the revision answered (`Policy-Revision`). A setting " +
    "that is absent is not set: each pdp's own (`DEFAULT_DECISION`, `PDP_AUTHZEN_DEFAULT`) applies.",
  scope: SCOPES.policyRead,
  params: { solution: solutionParam(SCOPES.policyRead) },
  responses: { 200: jsonResponse("the solution's settings", solutionSettingsAnswerSchema, REVISION_HEADER), 400: badSolution, ...common },
  handler: async (_req, res, { deps, params }) => {
    const { settings, revision } = await readSettings(deps.pool, params.solution);
    const answer: SolutionSettingsAnswer = { solution: params.solution, settings, revision };
    res.setHeader(HEADERS.policyRevision, String(revision));
    res.json(answer);
  },
});

/**
 * `PUT /ws/solutions/{solution}/settings` (scope `solution:admin`): replaces the solution's settings; changed ones
 * take a revision, which every pdp switches to as to a deploy.
 */
export const putSolutionSettings = papRoute({
  method: 'put',
  path: '/ws/solutions/{solution}/settings',
  summary: "replace a solution's settings",
  description:
    "Replaces all of the solution's settings with the body (`{}` removes them: the pdps' own defaults apply again). " +
    'Settings that differ from the stored ones take a new revision, propagated to every pdp like a deploy, so all of ' +
    'them decide with the new defaults from that revision on (`Policy-Revision`, usable in `Min-Policy-Revision`); ' +
    'equal ones change nothing and answer the current revision. Scope `solution:admin`.',
  scope: SCOPES.solutionAdmin,
  params: { solution: solutionParam(SCOPES.solutionAdmin) },
  body: {
    media: 'json',
    limit: SETTINGS_BODY_LIMIT,
    schema: solutionSettingsSchema,
    description: '`{defaultDecision?: "allow" | "inhibit", authzenDefault?: "deny" | "allow"}`',
  },
  responses: {
    200: jsonResponse('the settings now, the revision and whether they changed', solutionSettingsChangeAnswerSchema, REVISION_HEADER),
    400: problem('`invalid_id` (the solution in the URL) or `invalid_request` (an unknown setting or value; `errors[].path` names it)'),
    413: problem('body over 4 KiB'),
    415: problem('not `application/json`'),
    ...common,
  },
  handler: async (_req, res, { deps, params, body }) => {
    const outcome = await writeSettings(deps.pool, deps.onDeployedSetChange, params.solution, body as SolutionSettings, audited(deps, res, (done) => (done.changed ? { revision: done.revision } : undefined)));
    const answer: SolutionSettingsChangeAnswer = { solution: params.solution, ...outcome };
    res.setHeader(HEADERS.policyRevision, String(outcome.revision));
    res.json(answer);
  },
});
