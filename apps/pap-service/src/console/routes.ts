import type { Request, Response } from 'express';
import { SCOPES } from '@custos/contracts';
import { jsonResponse, problemResponse as problem, routesFor, type Route } from '@custos/service-kit';

/** What the console's routes run: its page and the two calls it forwards. */
export interface ConsoleRouteDeps {
  page: (req: Request, res: Response) => void;
  forwardToken: (req: Request, res: Response) => Promise<void>;
  forwardExplain: (req: Request, res: Response) => Promise<void>;
}

const consoleRoute = routesFor<ConsoleRouteDeps>();

const common = {
  401: problem('missing, malformed, expired or forged token (`WWW-Authenticate: Bearer`)'),
  403: problem('the token lacks the scope'),
};

/** The console and what it forwards (issue 10); pap serves them only when built with the console. */
export const CONSOLE_ROUTES: ReadonlyArray<Route<ConsoleRouteDeps>> = [
  consoleRoute({
    method: 'get',
    path: '/console',
    summary: 'the web console',
    description: "One HTML page (hash-routed) and its assets under `/console/assets/`, under a CSP of pap's own origin.",
    responses: { 200: { description: 'HTML' }, 404: problem('pap was built without the console') },
    handler: (req, res, { deps }) => deps.page(req, res),
  }),
  consoleRoute({
    method: 'post',
    path: '/console/token',
    summary: "the console's token request, forwarded to auth's `/oauth/token`",
    description: 'Body and Basic credentials as `/oauth/token` takes them; its answer comes back unchanged apart from `WWW-Authenticate`.',
    forwardedBody: { required: true, content: { 'application/x-www-form-urlencoded': { schema: { type: 'string' } } } },
    responses: {
      200: { description: "auth's token answer" },
      400: { description: "auth's OAuth error" },
      401: { description: "auth's OAuth error (`invalid_client`)" },
      415: problem('not a form'),
      502: problem('auth could not be reached'),
      504: problem('auth did not answer in time'),
    },
    handler: (req, res, { deps }) => deps.forwardToken(req, res),
  }),
  consoleRoute({
    method: 'post',
    path: '/console/explain',
    summary: "the console's explanation, forwarded to a pdp's `/event/explain` (`PDP_URL`)",
    description:
      "With the caller's token and `Min-Policy-Revision`. Answers the pdp's explained decision and the event after its " +
      'modifiers as the PEP SDK applies them; a pdp error is passed on unchanged.',
    scope: SCOPES.eventDecide,
    forwardedBody: { required: true, content: { 'application/json': { schema: { type: 'object', description: 'an Event (api.md §3)' } } } },
    responses: {
      200: jsonResponse('the explanation', {
        type: 'object',
        required: ['revision', 'decision', 'modifiedEvent', 'modifyError'],
        properties: {
          revision: { type: ['integer', 'null'] },
          decision: { type: 'object', description: "the pdp's `/event/explain` answer" },
          modifiedEvent: { type: ['object', 'null'], description: 'the event after the modifiers; null without any' },
          modifyError: { type: ['string', 'null'], description: 'why the modifiers could not be applied' },
        },
      }),
      415: problem('not JSON'),
      502: problem('the pdp could not be reached'),
      503: problem("the pdp's answer: no policy set yet, or `Min-Policy-Revision` not reached"),
      504: problem('the pdp did not answer in time'),
      ...common,
    },
    handler: (req, res, { deps }) => deps.forwardExplain(req, res),
  }),
];
