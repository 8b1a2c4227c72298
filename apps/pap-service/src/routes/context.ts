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
 * Middleware for `/ws/policy/:id...` and `/ws/timer/:id...`: 400 `invalid_id` for a malformed id of the kind, 403
 * for a solution the token does not cover (whether or not the document exists). The id lands in res.locals.
 */
export function documentIdParam(kind: 'policy' | 'timer', scope: string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const id = idParam(req, 'id');
    const parsed = id.length <= MAX_ID_LENGTH ? parseUrn(kind, id) : undefined;
    if (!parsed) {
      throw problems.badRequest(
        ERROR_CODES.invalidId,
        `\`${id.slice(0, MAX_ID_LENGTH)}\` is not a ${kind} id; expected \`urn:${kind}:<solution>:<name>\``,
      );
    }
    if (!principalOf(res).mayAccess(parsed.solution)) throw foreignSolution(scope);
    res.locals.documentId = id;
    res.locals.parsedDocumentId = parsed;
    next();
  };
}

export const documentIdOf = (res: Response): { id: string; parsed: ParsedUrn } => ({
  id: res.locals.documentId as string,
  parsed: res.locals.parsedDocumentId as ParsedUrn,
});

/** Middleware for `/ws/component/:identifier`: as documentIdParam, for component ids. */
export function componentIdParam(scope: string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const id = idParam(req, 'identifier');
    const parsed = id.length <= MAX_ID_LENGTH ? parseComponentUrn(id) : undefined;
    if (!parsed) {
      throw problems.badRequest(
        ERROR_CODES.invalidId,
        `\`${id.slice(0, MAX_ID_LENGTH)}\` is not a component id; expected \`urn:component:<solution>:<pep|pip|pxp>:<name>\``,
      );
    }
    if (!principalOf(res).mayAccess(parsed.solution)) throw foreignSolution(scope);
    res.locals.componentId = id;
    res.locals.parsedComponentId = parsed;
    next();
  };
}

export const componentIdOf = (res: Response): { id: string; parsed: ParsedComponentUrn } => ({
  id: res.locals.componentId as string,
  parsed: res.locals.parsedComponentId as ParsedComponentUrn,
});

/** A JSON boolean literal, optionally with the revision of the deployed set. */
export function sendBoolean(res: Response, value: boolean, revision?: number, status = 200): void {
  if (revision !== undefined) res.setHeader(HEADERS.policyRevision, String(revision));
  res.status(status).json(value);
}
