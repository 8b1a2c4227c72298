import { ERROR_CODES, HEADERS, type AccessEvaluationRequest, type AccessEvaluationsRequest, type Event } from '@custos/contracts';
import { applyModifiers } from './apply-modifiers';
import { Deadline } from './deadline';
import {
  evaluationBody,
  evaluationsBody,
  readAuthZenDecision,
  readAuthZenEvaluations,
  type AuthZenResult,
  type AuthZenResults,
} from './authzen';
import { batchBody, readDecisionBatch } from './batch';
import { readDecision, type Decision } from './decision';
import {
  AuthenticationError,
  CustosError,
  DecisionDeniedError,
  DecisionTimeoutError,
  TooManyRequestsError,
  TransportError,
  UnexpectedStatusError,
  type ProblemBody,
} from './errors';
import { isJsonObject, jsonCopy } from './json-value';
import { custosMiddleware, type MiddlewareOptions } from './middleware';
import { resolveOptions, type CustosClientOptions, type ResolvedOptions } from './options';
import { NO_REDIRECTS, refuseRedirect } from './redirects';
import { admissionPauseMs, backoffMs, requestNeverSent, retryAfterMs } from './retry';
import { issueToken } from './token-endpoint';
import { TokenSource } from './token-source';
import { addTraceHeaders } from './trace';

export interface DecideOptions {
  /** Answer only from policy revision `n` or later (`Min-Policy-Revision`; the pdp waits up to 2 s, then 503). */
  minPolicyRevision?: number;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
}

export interface EnforceOptions extends DecideOptions {
  /** `true` (default): wait out the decision's delay before resolving or rejecting. `false`: return it. */
  applyDelay?: boolean;
}

/** What `enforce` resolves with. */
export interface Enforcement {
  /** A deep copy of the event with every modifier applied; the caller's event is never changed. */
  event: Event;
  /** The decision; null only when the client failed open. */
  decision: Decision | null;
  /** The decision's delay in milliseconds. */
  delayMs: number;
  /** Whether `delayMs` was already waited out (false with `applyDelay: false`: the caller must wait). */
  delayApplied: boolean;
  /** Set only with `failClosed: false`, when Custos could not be reached: why the event was let through unchanged. */
  failedOpen?: TransportError | DecisionTimeoutError;
}

/** One item of `enforceAll`: released (as `enforce` resolves) or refused (as `enforce` rejects), on its own. */
export type ItemEnforcement = (Enforcement & { released: true }) | { released: false; decision: Decision; error: CustosError };

/** Turns a 200 answer (its text and `Policy-Revision` header) into what the call resolves with, or throws. */
type AnswerReader<T> = (text: string, revisionHeader: string | null, decisionIdHeader: string | null) => T;

/**
 * Problem codes the pdp answers before it looks at the event (not ready yet, a demanded revision not there yet,
 * signing keys not fetchable): nothing was recorded, so the request may be sent again.
 */
const ANSWERED_BEFORE_DECIDING: ReadonlySet<string> = new Set([ERROR_CODES.serviceUnavailable, ERROR_CODES.policyRevisionUnavailable]);

/** A policy enforcement point's connection to Custos: asks for decisions and carries them out. */
export class CustosClient {
  private readonly options: ResolvedOptions;
  private readonly tokens: TokenSource;
  private highestRevision: number | null = null;

  constructor(options: CustosClientOptions) {
    this.options = resolveOptions(options);
    const { authUrl, clientId, clientSecret, timeoutMs, retry, onRetry } = this.options;
    this.tokens = new TokenSource(() => issueToken({ authUrl, clientId, clientSecret, timeoutMs, retry, onRetry }));
  }

  /** The highest `Policy-Revision` seen in an answer or passed to `noteRevision`; null before the first. */
  get policyRevision(): number | null {
    return this.highestRevision;
  }

  /** Remembers a revision learnt elsewhere (e.g. the `Policy-Revision` of a deploy at pap). */
  noteRevision(revision: number | null | undefined): void {
    if (typeof revision !== 'number' || !Number.isSafeInteger(revision) || revision < 0) return;
    if (this.highestRevision === null || revision > this.highestRevision) this.highestRevision = revision;
  }

  /** Asks the pdp and returns its decision, allowed or not; rejects only when there is no usable answer. */
  async decide(event: Event, options: DecideOptions = {}): Promise<Decision> {
    const decision = await this.call(this.options.urls.event, JSON.stringify(event), options, readDecision);
    this.noteRevision(decision.policyRevision);
    return decision;
  }

  /**
   * Asks for several decisions in one request (`POST /events`): one decision per event, in the order of the
   * events, each decided as `decide` would decide it (history-using events recorded in that order). At most
   * `MAX_BATCH_ITEMS` events; an empty list resolves with an empty list without asking.
   */
  async decideAll(events: readonly Event[], options: DecideOptions = {}): Promise<Decision[]> {
    const body = batchBody(events);
    if (events.length === 0) return [];
    const decisions = await this.call(this.options.urls.events, body, options, (text, revision) => readDecisionBatch(text, revision, events.length));
    this.noteRevision(decisions[0]?.policyRevision);
    return decisions;
  }

  /**
   * Asks and enforces several events in one request, each on its own and failing closed on its own: an item is
   * `released` with its modified copy only when its decision allowed it and every modifier was applied; a
   * denial, or a modifier that cannot be applied, refuses that item alone. Resolves after the longest delay of
   * all decisions (with `applyDelay`), so no item is released before its own delay. When there is no usable
   * answer at all the promise rejects, as `enforce` does (or, with `failClosed: false` and Custos unreachable,
   * every item is released unchanged with `failedOpen`).
   */
  async enforceAll(events: readonly Event[], options: EnforceOptions = {}): Promise<ItemEnforcement[]> {
    const applyDelay = options.applyDelay ?? true;
    const copies = events.map((event) => jsonCopy(event));
    let decisions: Decision[];
    try {
      decisions = await this.decideAll(copies, options);
    } catch (error) {
      if (!this.options.failClosed && (error instanceof TransportError || error instanceof DecisionTimeoutError)) {
        return copies.map((event) => ({ released: true, event, decision: null, delayMs: 0, delayApplied: true, failedOpen: error }));
      }
      throw error;
    }
    const longest = Math.max(0, ...decisions.map((decision) => decision.delay));
    const items = decisions.map((decision, index): ItemEnforcement => {
      const event = copies[index] as Event;
      if (!decision.eventAllowed) return { released: false, decision, error: new DecisionDeniedError(decision) };
      try {
        applyModifiers(event, decision.modifiers, decision);
      } catch (error) {
        if (error instanceof CustosError) return { released: false, decision, error };
        throw error;
      }
      return { released: true, event, decision, delayMs: decision.delay, delayApplied: applyDelay || decision.delay === 0 };
    });
    if (applyDelay && longest > 0) await this.options.sleep(longest);
    return items;
  }

  /**
   * OpenID AuthZEN Access Evaluation (`POST /access/v1/evaluation`): the spec's `{ decision, context }`, with
   * Custos' context (decision id, revision, modifiers, delay) typed and always filled: the pdp leaves out a context
   * with nothing to act on, and the id and revision come from its headers then. `decision` true means allowed and, when the
   * request said `custos_modifiers_supported: false`, that nothing has to be modified; a PEP that applies
   * modifiers uses `applyAuthZenModifiers` before releasing anything.
   */
  async evaluation(request: AccessEvaluationRequest, options: DecideOptions = {}): Promise<AuthZenResult> {
    const result = await this.call(this.options.urls.evaluation, evaluationBody(request), options, (text, revision, ids) => readAuthZenDecision(text, revision, ids));
    this.noteRevision(result.context.policy_revision);
    return result;
  }

  /**
   * OpenID AuthZEN Access Evaluations (`POST /access/v1/evaluations`): top-level `subject`, `action`,
   * `resource` and `context` are defaults each entry of `evaluations` may replace; `options.evaluations_semantic`
   * may stop at the first deny or permit, and then fewer decisions come back. At most `MAX_BATCH_ITEMS`.
   */
  async evaluations(request: AccessEvaluationsRequest, options: DecideOptions = {}): Promise<AuthZenResults> {
    const { body, count, complete } = evaluationsBody(request);
    const results = await this.call(this.options.urls.evaluations, body, options, (text, revision, ids) => readAuthZenEvaluations(text, count, complete, revision, ids));
    this.noteRevision(results.evaluations[0]?.context.policy_revision);
    return results;
  }

  /** One decision request within the call's timeout; the deadline's own error becomes a DecisionTimeoutError. */
  private async call<T>(url: string, body: string, options: DecideOptions, read: AnswerReader<T>): Promise<T> {
    const timeoutMs = options.timeoutMs ?? this.options.timeoutMs;
    if (typeof timeoutMs !== 'number' || !Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new TypeError('`timeoutMs` must be a positive number');
    const minRevision = this.minRevisionFor(options);
    const deadline = new Deadline(timeoutMs);
    const failures: unknown[] = [];
    try {
      return await this.ask(url, body, minRevision, deadline, failures, read);
    } catch (error) {
      if (error === deadline.reason) throw new DecisionTimeoutError(timeoutMs, { cause: failures.at(-1) ?? error });
      throw error;
    } finally {
      deadline.clear();
    }
  }

  /**
   * Asks and enforces: resolves with a modified deep copy of the event when allowed; rejects with
   * `DecisionDeniedError` when inhibited, and with a typed error whenever the decision cannot be obtained or
   * carried out (fail closed; see `failClosed` for the one exception).
   */
  async enforce(event: Event, options: EnforceOptions = {}): Promise<Enforcement> {
    const applyDelay = options.applyDelay ?? true;
    const copy = jsonCopy(event);
    let decision: Decision;
    try {
      decision = await this.decide(copy, options);
    } catch (error) {
      if (!this.options.failClosed && (error instanceof TransportError || error instanceof DecisionTimeoutError)) {
        return { event: copy, decision: null, delayMs: 0, delayApplied: true, failedOpen: error };
      }
      throw error;
    }
    if (!decision.eventAllowed) {
      if (applyDelay && decision.delay > 0) await this.options.sleep(decision.delay);
      throw new DecisionDeniedError(decision);
    }
    // Modifiers are applied before the delay, so an event that cannot be released fails at once.
    applyModifiers(copy, decision.modifiers, decision);
    if (applyDelay && decision.delay > 0) await this.options.sleep(decision.delay);
    return { event: copy, decision, delayMs: decision.delay, delayApplied: applyDelay || decision.delay === 0 };
  }

  /** Express-style middleware enforcing each request with this client (see `custosMiddleware`). */
  middleware<Req extends object>(options: MiddlewareOptions<Req>): ReturnType<typeof custosMiddleware<Req>> {
    return custosMiddleware(this, options);
  }

  private minRevisionFor(options: DecideOptions): number | undefined {
    const asked = options.minPolicyRevision;
    if (asked !== undefined && !(Number.isSafeInteger(asked) && asked >= 0)) throw new TypeError('`minPolicyRevision` must be a non-negative integer');
    const remembered = this.options.monotonicRevisions ? (this.highestRevision ?? undefined) : undefined;
    if (asked === undefined) return remembered;
    return remembered === undefined ? asked : Math.max(asked, remembered);
  }

  /**
   * One decision request, repeated only where that cannot record the event twice: after a 401 (the pdp checks
   * the token before it reads the event) once, with a fresh token; when the connection was never made; and
   * after a 503 the pdp sends before deciding; after a 429 (admission, before the body is read) once, when its
   * `Retry-After` ends within the deadline, else a TooManyRequestsError at once. A request that may have reached the pdp's decision is never
   * repeated: the pdp may have recorded it in the event history, where a copy would count twice.
   */
  private async ask<T>(url: string, body: string, minRevision: number | undefined, deadline: Deadline, failures: unknown[], read: AnswerReader<T>): Promise<T> {
    const { retry } = this.options;
    let tokenRenewed = false;
    let admissionRetried = false;
    let attempt = 1;
    for (;;) {
      const token = await deadline.race(this.tokens.get());
      const headers: Record<string, string> = {
        Authorization: `Bearer ${token}`,
        'Content-Type': 'application/json',
        Accept: 'application/json',
      };
      if (minRevision !== undefined) headers[HEADERS.minPolicyRevision] = String(minRevision);
      addTraceHeaders(headers, this.options.traceHeaders);
      let response: Response;
      try {
        response = await fetch(url, { method: 'POST', headers, body, signal: deadline.signal, ...NO_REDIRECTS });
      } catch (error) {
        if (error === deadline.reason) throw error;
        const failure = new TransportError(url, { cause: error });
        if (!requestNeverSent(error) || attempt >= retry.attempts) throw failure;
        failures.push(failure);
        await this.pause(deadline, attempt, failure);
        attempt += 1;
        continue;
      }
      await refuseRedirect(url, response);
      const text = await this.readBody(url, response, deadline);
      if (response.status === 200) return read(text, response.headers.get(HEADERS.policyRevision), response.headers.get(HEADERS.decisionId));
      const problem = problemOf(text);
      if (response.status === 401) {
        if (tokenRenewed) {
          throw new AuthenticationError('the pdp refused a freshly issued token', 401, problem?.code, { cause: statusCause(response.status, problem, text) });
        }
        // Not one of the transport retries: the same attempt again, with a new token.
        tokenRenewed = true;
        this.tokens.invalidate(token);
        continue;
      }
      if (response.status === 429) {
        const refused = new TooManyRequestsError(url, retryAfterMs(response.headers.get('retry-after')), problem, { cause: statusCause(429, problem, text) });
        const delayMs = admissionRetried ? undefined : admissionPauseMs(retry, attempt, refused.retryAfterMs, deadline.remainingMs);
        if (delayMs === undefined) throw refused;
        admissionRetried = true;
        failures.push(refused);
        this.options.onRetry({ operation: 'decision', attempt, delayMs, error: refused });
        await deadline.sleep(delayMs);
        attempt += 1;
        continue;
      }
      const failure = new UnexpectedStatusError(url, response.status, problem, { cause: statusCause(response.status, problem, text) });
      const safe = response.status === 503 && typeof problem?.code === 'string' && ANSWERED_BEFORE_DECIDING.has(problem.code);
      if (!safe || attempt >= retry.attempts) throw failure;
      failures.push(failure);
      await this.pause(deadline, attempt, failure, response.headers.get('retry-after'));
      attempt += 1;
    }
  }

  private async readBody(url: string, response: Response, deadline: Deadline): Promise<string> {
    try {
      return await response.text();
    } catch (error) {
      if (error === deadline.reason) throw error;
      throw new TransportError(url, { cause: error });
    }
  }

  private async pause(deadline: Deadline, attempt: number, failure: CustosError, retryAfter?: string | null): Promise<void> {
    const delayMs = backoffMs(this.options.retry, attempt, retryAfter);
    this.options.onRetry({ operation: 'decision', attempt, delayMs, error: failure });
    await deadline.sleep(delayMs);
  }
}

function problemOf(text: string): ProblemBody | undefined {
  try {
    const body: unknown = JSON.parse(text);
    return isJsonObject(body) ? body : undefined;
  } catch {
    return undefined;
  }
}

function statusCause(status: number, problem: ProblemBody | undefined, text: string): Error {
  const detail = typeof problem?.detail === 'string' ? problem.detail : text.slice(0, 200);
  return new Error(`status ${status}${detail ? `: ${detail}` : ''}`);
}
