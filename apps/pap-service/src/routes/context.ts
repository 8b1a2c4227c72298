import type { Response } from 'express';
import type { Pool } from 'pg';
import { Type } from '@sinclair/typebox';
import {
  COMPONENT_URN_PATTERN,
  ERROR_CODES,
  HEADERS,
  parseComponentUrn,
  parseUrn,
  urnPatternOf,
  type ParsedComponentUrn,
  type ParsedUrn,
} from '@custos/contracts';
import { foreignSolution, principalOf, problems, routesFor, type AuditLog, type Logger, type ParamSpec, type TokenVerifier } from '@custos/service-kit';
import type { AuthTrail } from '../audit/auth-trail';
import type { DocumentKind } from '../documents/kind';
import type { DecisionRecordReader } from '../decision-records/reader';
import type { ReplicaDirectory } from '../replicas/replica-directory';
import type { DocumentMetadata, DocumentStore } from '../store/documents';

/** What every route handler of pap's API needs. */
export interface RouteContext {
  pool: Pool;
  verifier: TokenVerifier;
  logger: Logger;
  /** Handed to the stores, which call it after a commit that wrote an outbox row: it wakes the publisher. */
  onDeployedSetChange: () => void;
  /** The one store of each kind of document. */
  storeOf<M extends DocumentMetadata>(kind: DocumentKind<M, unknown>): DocumentStore<M>;
  /** The pdp replicas that report over NATS (none known without propagation). */
  replicas?: ReplicaDirectory;
  /** `POLICY_TIMEZONE`: the zone timers' next fire times are told in. */
  timeZone: string;
  /** pap's audit trail: changes record themselves in their transactions (routes/audited.ts). */
  audit: AuditLog;
  /** Auth's audit trail, merged into `GET /ws/audit`; none in a pap without auth (tests). */
  authTrail?: AuthTrail;
  /** Reads the decision records the pdps publish (none without NATS: the routes answer 503). */
  decisionRecords?: DecisionRecordReader;
}

export const papRoute = routesFor<RouteContext>();

/** Longest id accepted in a URL; the URN patterns themselves have no bound. */
const MAX_ID_LENGTH = 512;

/**
 * The 400 `invalid_id` for a path segment that is not a `what`: its length when that is what is wrong (the pattern
 * error alone would blame the characters of a name that is merely too long), else the form expected.
 */
export function invalidIdProblem(text: string, what: string, maxLength: number, expected: string) {
  if (text.length > maxLength) {
    return problems.badRequest(ERROR_CODES.invalidId, `the ${what} in the URL is ${text.length} characters long; it may have at most ${maxLength}`);
  }
  return problems.badRequest(ERROR_CODES.invalidId, `\`${text}\` is not a ${what}; expected ${expected}`);
}

/**
 * A URN path parameter: 400 `invalid_id` when it is not of the form `expected`, 403 for a solution the token does
 * not cover (whether or not the resource exists). The handler gets the id and its parts.
 */
function urnParam<P extends { solution: string }>(
  pattern: string,
  parse: (id: string) => P | undefined,
  what: string,
  expected: string,
  scope: string,
  example: string,
) {
  return {
    schema: Type.String({ pattern, maxLength: MAX_ID_LENGTH }),
    description: `the whole ${what} URN, e.g. \`${example}\``,
    invalid: (id: string) => invalidIdProblem(id, `${what} id`, MAX_ID_LENGTH, `\`${expected}\``),
    parse: (id: string, res: Response): { id: string; parsed: P } => {
      const parsed = parse(id);
      // The schema's pattern is the parser's, so this holds for every id that reaches here.
      if (!parsed) throw problems.badRequest(ERROR_CODES.invalidId, `\`${id}\` is not a ${what} id; expected \`${expected}\``);
      if (!principalOf(res).mayAccess(parsed.solution)) throw foreignSolution(scope);
      return { id, parsed };
    },
  } satisfies ParamSpec;
}

/** `/ws/policy/{id}…` and `/ws/timer/{id}…`: the document id, checked as urnParam says. */
export const documentIdParam = (kind: 'policy' | 'timer', scope: string) =>
  urnParam<ParsedUrn>(urnPatternOf(kind), (id) => parseUrn(kind, id), kind, `urn:${kind}:<solution>:<name>`, scope, `urn:${kind}:acme:${kind === 'policy' ? 'mask-names' : 'nightly'}`);

/** `/ws/component/{identifier}`: the component id, checked as urnParam says. */
const componentIdParam = (scope: string) =>
  urnParam<ParsedComponentUrn>(
    COMPONENT_URN_PATTERN,
    parseComponentUrn,
    'component',
    'urn:component:<solution>:<pep|pip|pxp>:<name>',
    scope,
    'urn:component:acme:pip:hr',
  );

/** What every operation on one component declares alike: its path, its scope, and its id checked for that scope. */
export const componentOperation = (scope: string) => ({ path: '/ws/component/{identifier}', scope, params: { identifier: componentIdParam(scope) } });

/** A JSON boolean literal, optionally with the revision of the deployed set. */
export function sendBoolean(res: Response, value: boolean, revision?: number, status = 200): void {
  if (revision !== undefined) res.setHeader(HEADERS.policyRevision, String(revision));
  res.status(status).json(value);
}
