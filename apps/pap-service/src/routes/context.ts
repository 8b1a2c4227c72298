import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Pool } from 'pg';
import {
  ERROR_CODES,
  HEADERS,
  parseComponentUrn,
  parseUrn,
  type ParsedComponentUrn,
  type ParsedUrn,
} from '@custos/contracts';
import { foreignSolution, principalOf, problems, type Logger, type TokenVerifier } from '@custos/service-kit';

/** What every route handler needs. */
export interface RouteContext {
  pool: Pool;
  verifier: TokenVerifier;
  logger: Logger;
  /** Handed to the stores, which call it after a commit that wrote an outbox row: it wakes the publisher. */
  onDeployedSetChange: () => void;
}

export type RouteFactory = (ctx: RouteContext) => RequestHandler[];

/** Longest id accepted in a URL; the URN patterns themselves have no bound. */
const MAX_ID_LENGTH = 512;

const idParam = (req: Request, name: string): string => {
  const value = req.params[name];
  return typeof value === 'string' ? value : '';
};

/**
 * Middleware that reads the URN in URL parameter `param`: 400 `invalid_id` when it is not of the form `expected`, 403
 * for a solution the token does not cover (whether or not the resource exists). The id and its parts land in
 * res.locals under `key`.
 */
function urnParam<P extends { solution: string }>(
  param: string,
  parse: (id: string) => P | undefined,
  what: string,
  expected: string,
  scope: string,
  key: string,
): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const id = idParam(req, param);
    const parsed = id.length <= MAX_ID_LENGTH ? parse(id) : undefined;
    if (!parsed) {
      throw problems.badRequest(ERROR_CODES.invalidId, `\`${id.slice(0, MAX_ID_LENGTH)}\` is not a ${what} id; expected \`${expected}\``);
    }
    if (!principalOf(res).mayAccess(parsed.solution)) throw foreignSolution(scope);
    res.locals[key] = { id, parsed };
    next();
  };
}

/** `/ws/policy/:id...` and `/ws/timer/:id...`: the document id, checked as urnParam says. */
export const documentIdParam = (kind: 'policy' | 'timer', scope: string): RequestHandler =>
  urnParam('id', (id) => parseUrn(kind, id), kind, `urn:${kind}:<solution>:<name>`, scope, 'documentId');

export const documentIdOf = (res: Response): { id: string; parsed: ParsedUrn } => res.locals.documentId as { id: string; parsed: ParsedUrn };

/** `/ws/component/:identifier`: the component id, checked as urnParam says. */
export const componentIdParam = (scope: string): RequestHandler =>
  urnParam('identifier', parseComponentUrn, 'component', 'urn:component:<solution>:<pep|pip|pxp>:<name>', scope, 'componentId');

export const componentIdOf = (res: Response): { id: string; parsed: ParsedComponentUrn } =>
  res.locals.componentId as { id: string; parsed: ParsedComponentUrn };

/** A JSON boolean literal, optionally with the revision of the deployed set. */
export function sendBoolean(res: Response, value: boolean, revision?: number, status = 200): void {
  if (revision !== undefined) res.setHeader(HEADERS.policyRevision, String(revision));
  res.status(status).json(value);
}
