import type { IncomingMessage, ServerResponse } from 'node:http';
import { ERROR_CODES, HEADERS, SCOPES, type Refusal } from '@custos/contracts';
import {
  HttpProblem,
  JSON_TYPES,
  insufficientScope,
  parseJson,
  problems,
  readBody,
  readBodyThen,
  requireMediaType,
  toProblem,
  writeProblem,
  type Logger,
  type BodyCallback,
  type Principal,
  type TokenVerifier,
} from '@custos/service-kit';
import type { Admission, Admitted, WorkSlices } from '../admission';
import type { ActivePolicySet } from '../policy-set/follower';

/**
 * The steps every decision route takes before and after deciding (POST /event, /events and the AuthZEN
 * evaluations), in one place so the routes cannot drift apart: token and scope, media type and body, the active set
 * at the revision the caller demands, the answer, and the problem answer when any of it fails.
 */

/** What the decision routes need from the policy-set follower. */
export interface PolicySource {
  readonly active: ActivePolicySet | undefined;
  waitForRevision(revision: number, timeoutMs: number): Promise<boolean>;
  /** Undefined when `action`'s policies can be explained now, else a promise that settles once they can (issue 26). */
  explainable?(active: ActivePolicySet, action: string): Promise<void> | undefined;
}

/** The caller, who must hold `event:decide` (api.md §2.2). */
export async function decidingPrincipal(verifier: TokenVerifier, req: IncomingMessage): Promise<Principal> {
  const principal = await verifier.authenticate(req.headers.authorization);
  if (!principal.hasScope(SCOPES.eventDecide)) throw insufficientScope(SCOPES.eventDecide);
  return principal;
}

/**
 * The caller when its token was verified before (the verifier's cache, checked against the revocation list now),
 * without a promise; undefined when the token needs a signature check (then decidingPrincipal).
 */
export function principalNow(verifier: TokenVerifier, req: IncomingMessage): Principal | undefined {
  const principal = verifier.cached(req.headers.authorization);
  if (principal !== undefined && !principal.hasScope(SCOPES.eventDecide)) throw insufficientScope(SCOPES.eventDecide);
  return principal;
}

/** readJsonText with a callback, for the hot path (no promise); the media type is checked before, by throwing. */
export function readJsonTextThen(req: IncomingMessage, limit: number, done: BodyCallback): void {
  if (req.headers['content-type'] !== 'application/json') requireMediaType(req, JSON_TYPES);
  readBodyThen(req, limit, done);
}

/** The text of a JSON body, not parsed yet: 415 for another media type, 413 when larger than `limit` bytes. */
export function readJsonText(req: IncomingMessage, limit: number): Promise<string> {
  // The header nearly every client sends needs no parsing (requireMediaType reads parameters with a regex).
  if (req.headers['content-type'] !== 'application/json') requireMediaType(req, JSON_TYPES);
  return readBody(req, limit);
}

/**
 * A single-call body larger than this waits for its solution's turn before it is parsed: parsing 1 MiB takes
 * milliseconds, and many of them at once would hold the loop. Smaller ones (nearly every event) parse at once.
 */
export const PARSE_TURN_CHARS = 64 * 1024;

/** The JSON of a single-call body, parsed in its solution's turn when it is large. */
export async function parseSingle(text: string, admission: Admission, admitted: Admitted): Promise<unknown> {
  if (text.length > PARSE_TURN_CHARS) await admission.turns.turn(admitted.key);
  return parseJson(text);
}

/**
 * The JSON of a batch body, parsed in its solution's turn: the parse, the check and the first slice of deciding then
 * run as one turn of the solution's, never many solutions' worth at once in one pass of the event loop. A body larger
 * than one item may be is outlined first (`prescan`, contracts): past a limit it is refused without being parsed.
 */
export async function parseBatch(text: string, slices: WorkSlices, prescan: (text: string) => Refusal | undefined, code: string): Promise<unknown> {
  await slices.next();
  const refusal = prescan(text);
  if (refusal !== undefined) throw refusalProblem(refusal, code);
  return parseJson(text);
}

/** A request the contracts' parser refused, as its problem: 413 for a bound, else a 400 with `code`. */
export function refusalProblem(refusal: Refusal, code: string): HttpProblem {
  return new HttpProblem(refusal.status, refusal.status === 413 ? ERROR_CODES.payloadTooLarge : code, refusal.detail, refusal.errors);
}

/** The Min-Policy-Revision header: absent, or a non-negative integer. */
export function minRevisionOf(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  const text = Array.isArray(header) ? header.join(', ') : header.trim();
  if (!/^\d{1,15}$/.test(text)) {
    throw problems.badRequest(
      ERROR_CODES.invalidRequest,
      `header \`${HEADERS.minPolicyRevision}\` must be a non-negative integer, got \`${text.slice(0, 40)}\``,
      [{ path: `headers.${HEADERS.minPolicyRevision}`, message: 'must be a non-negative integer' }],
    );
  }
  return Number(text);
}

const notReady = () =>
  problems.serviceUnavailable(ERROR_CODES.serviceUnavailable, 'no policy set is active yet; try again shortly', 1);

const revisionUnavailable = (wanted: number, active: number | undefined) =>
  problems.serviceUnavailable(
    ERROR_CODES.policyRevisionUnavailable,
    `policy revision \`${wanted}\` is not active on this replica yet (active: ${active ?? 'none'})`,
    1,
  );

/**
 * The active set to decide with: at least the revision of `Min-Policy-Revision` (waiting up to `waitMs` for it,
 * then 503), and 503 before the first snapshot. Taken once per request, so every item of a batch decides against
 * the same revision.
 */
export async function activeSetFor(req: IncomingMessage, policies: PolicySource, waitMs: number): Promise<ActivePolicySet> {
  return activeSetNow(req, policies) ?? waitForActiveSet(req, policies, waitMs);
}

/**
 * The active set when nothing has to be waited for (no `Min-Policy-Revision`, or one that is active already);
 * undefined when the request waits for its revision (activeSetFor); 503 before the first snapshot.
 */
export function activeSetNow(req: IncomingMessage, policies: PolicySource): ActivePolicySet | undefined {
  const active = policies.active;
  const header = req.headers['min-policy-revision'];
  if (header !== undefined) {
    const minRevision = minRevisionOf(header);
    if (minRevision !== undefined && (active === undefined || active.revision < minRevision)) return undefined;
  }
  if (active === undefined) throw notReady();
  return active;
}

async function waitForActiveSet(req: IncomingMessage, policies: PolicySource, waitMs: number): Promise<ActivePolicySet> {
  const minRevision = minRevisionOf(req.headers['min-policy-revision']);
  let active = policies.active;
  if (minRevision !== undefined && (active === undefined || active.revision < minRevision)) {
    const reached = await policies.waitForRevision(minRevision, waitMs);
    active = policies.active;
    if (!reached || active === undefined) throw revisionUnavailable(minRevision, active?.revision);
  }
  if (active === undefined) throw notReady();
  return active;
}

/**
 * Answers a failed decision request as problem+json and says what status it got; undefined when the client went
 * away while its body was read (nobody to answer).
 */
export function answerFailure(
  req: IncomingMessage,
  res: ServerResponse,
  error: unknown,
  logger: Logger,
  requestId: string,
  responseRequestId: string = requestId,
): HttpProblem | undefined {
  if (!(error instanceof HttpProblem) && (res.destroyed || req.socket.destroyed || req.readableAborted)) {
    res.destroy();
    return undefined;
  }
  const problem = toProblem(error, logger, requestId);
  if (!res.headersSent) res.setHeader(HEADERS.requestId, responseRequestId);
  writeProblem(res, problem);
  return problem;
}

/**
 * Answers 200 with a JSON text, the revision that decided, the request id and any `extra` headers. Every header goes
 * in one writeHead: a header set before with setHeader would send node's writeHead down its slower merging path.
 */
export function writeDecisionAnswer(res: ServerResponse, text: string, revision: number, requestId: string, extra?: Record<string, string>): void {
  if (extra === undefined) {
    // Node takes a flat list of names and values as it comes; the revision's text is made once per revision.
    res.writeHead(200, ['Content-Type', 'application/json', 'Content-Length', String(Buffer.byteLength(text)), HEADERS.policyRevision, revisionText(revision), HEADERS.requestId, requestId]);
  } else {
    res.writeHead(200, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(text),
      [HEADERS.policyRevision]: String(revision),
      [HEADERS.requestId]: requestId,
      ...extra,
    });
  }
  res.end(text);
}

let lastRevision = -1;
let lastRevisionText = '';
/** The `Policy-Revision` value: nearly every answer in a row has the same revision. */
function revisionText(revision: number): string {
  if (revision !== lastRevision) {
    lastRevision = revision;
    lastRevisionText = String(revision);
  }
  return lastRevisionText;
}
