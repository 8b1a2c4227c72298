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
  /** Called after a commit that wrote an outbox row: wakes the publisher in this process. */
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
 * Middleware for `/ws/policy/:id...`: 400 `invalid_id` for a malformed id, 403 for a solution
 * the token does not cover (whether or not the policy exists). The parsed id lands in res.locals.
 */
export function policyIdParam(scope: string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const id = idParam(req, 'id');
    const parsed = id.length <= MAX_ID_LENGTH ? parseUrn('policy', id) : undefined;
    if (!parsed) {
      throw problems.badRequest(
        ERROR_CODES.invalidId,
        `\`${id.slice(0, MAX_ID_LENGTH)}\` is not a policy id; expected \`urn:policy:<solution>:<name>\``,
      );
    }
    if (!principalOf(res).mayAccess(parsed.solution)) throw foreignSolution(scope);
    res.locals.policyId = id;
    res.locals.parsedId = parsed;
    next();
  };
}

export const policyIdOf = (res: Response): { id: string; parsed: ParsedUrn } => ({
  id: res.locals.policyId as string,
  parsed: res.locals.parsedId as ParsedUrn,
});

/** Middleware for `/ws/timer/:id...`: as policyIdParam, for timer ids (`urn:timer:<solution>:<name>`). */
export function timerIdParam(scope: string): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const id = idParam(req, 'id');
    const parsed = id.length <= MAX_ID_LENGTH ? parseUrn('timer', id) : undefined;
    if (!parsed) {
      throw problems.badRequest(
        ERROR_CODES.invalidId,
        `\`${id.slice(0, MAX_ID_LENGTH)}\` is not a timer id; expected \`urn:timer:<solution>:<name>\``,
      );
    }
    if (!principalOf(res).mayAccess(parsed.solution)) throw foreignSolution(scope);
    res.locals.timerId = id;
    res.locals.parsedTimerId = parsed;
    next();
  };
}

export const timerIdOf = (res: Response): { id: string; parsed: ParsedUrn } => ({
  id: res.locals.timerId as string,
  parsed: res.locals.parsedTimerId as ParsedUrn,
});

/** Middleware for `/ws/component/:identifier`: as policyIdParam, for component ids. */
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
