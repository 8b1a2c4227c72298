import type { Modifier } from '@custos/contracts';
import type { Decision } from './decision';

/**
 * Every error the SDK rejects with. `code` tells the kinds apart without `instanceof` (useful across bundles);
 * `cause` holds the lower-level reason.
 */
export class CustosError extends Error {
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** The pdp inhibited the event. Not a failure: the answer was clear, and it is no. */
export class DecisionDeniedError extends CustosError {
  constructor(readonly decision: Decision) {
    super('denied', `the event was inhibited (decision \`${decision.id.identifier}\`)`);
  }
}

/** No answer within `timeoutMs` (token fetch, pdp call and retries together). */
export class DecisionTimeoutError extends CustosError {
  constructor(readonly timeoutMs: number, options?: { cause?: unknown }) {
    super('timeout', `no decision within ${timeoutMs} ms`, options);
  }
}

/** The connection failed: refused, reset, closed before an answer, name not found. */
export class TransportError extends CustosError {
  constructor(readonly url: string, options?: { cause?: unknown }) {
    super('transport', `cannot reach \`${url}\`${describeCause(options?.cause)}`, options);
  }
}

/** The token endpoint refused the credentials, or the pdp refused a freshly fetched token. */
export class AuthenticationError extends CustosError {
  constructor(
    message: string,
    readonly status: number,
    readonly oauthError: string | undefined,
    options?: { cause?: unknown },
  ) {
    super('authentication', message, options);
  }
}

/** A problem details body as Custos services send them, as far as it could be read. */
export interface ProblemBody {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  code?: string;
  [key: string]: unknown;
}

/** The pdp (or the token endpoint) answered with a status the SDK cannot use (403, 404, 5xx, ...). */
export class UnexpectedStatusError extends CustosError {
  constructor(
    readonly url: string,
    readonly status: number,
    readonly problem: ProblemBody | undefined,
    options?: { cause?: unknown },
  ) {
    super('unexpected_status', `\`${url}\` answered ${status}${problem?.code ? ` \`${problem.code}\`` : ''}${problem?.detail ? `: ${problem.detail}` : ''}`, options);
  }
}

/**
 * The pdp refused the request at admission (429 `too_many_requests`: the token's solution has too many requests in
 * flight, or is past its rate), or the token endpoint refused to issue a token for now (429: too many failed
 * sign-ins of this client id or from this address), and the call could not wait out `Retry-After` within its
 * deadline, or was refused again after waiting once. Nothing was decided or recorded. `retryAfterMs` is when the
 * server said to try again (undefined when it said nothing readable); `url` tells which server it was.
 */
export class TooManyRequestsError extends CustosError {
  readonly status = 429;

  constructor(
    readonly url: string,
    readonly retryAfterMs: number | undefined,
    readonly problem: ProblemBody | undefined,
    options?: { cause?: unknown },
  ) {
    super(
      'too_many_requests',
      `\`${url}\` refused the request for now (429${problem?.detail ? `: ${problem.detail}` : ''})${retryAfterMs === undefined ? '' : `; retry after ${retryAfterMs} ms`}`,
      options,
    );
  }
}

/**
 * The token endpoint or the pdp answered with a redirect. The SDK follows none: the token request carries the
 * client secret and a decision request the token, and a redirect would hand them to wherever it points. Fix
 * `authUrl`/`pdpUrl` to the final address instead; never retried.
 */
export class RedirectError extends CustosError {
  constructor(
    readonly url: string,
    readonly status: number,
    /** The Location, absolute; undefined when the answer had none. */
    readonly location: string | undefined,
  ) {
    super('redirect', `\`${url}\` answered ${status} redirecting to \`${location ?? '(no Location)'}\`; the SDK follows no redirects with credentials`);
  }
}

/** The answer was not an AuthorizationDecision (not JSON, a field missing or of the wrong type). */
export class MalformedDecisionError extends CustosError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('malformed_decision', message, options);
  }
}

/** What every error about carrying out a decision's modifiers shares. */
export interface ModifierContext {
  /** The allowing decision whose modifiers could not be applied. */
  decision?: Decision;
  /** The modifier, as the pdp sent it. */
  modifier?: Modifier;
  /** Its position in the decision's `modifiers`. */
  index?: number;
}

/** A modifier names a method this SDK does not implement; the event is not released. */
export class UnsupportedModifierError extends CustosError {
  readonly method: string;
  readonly context: ModifierContext;

  constructor(method: string, context: ModifierContext, options?: { cause?: unknown }) {
    super('unsupported_modifier', `modifier method \`${method}\` is not supported`, options);
    this.method = method;
    this.context = context;
  }
}

/** A JSONPath the evaluator does not understand (outside its subset, or not a path at all). */
export class JsonPathError extends CustosError {
  readonly context: ModifierContext;

  constructor(readonly expression: string, context: ModifierContext, options?: { cause?: unknown }) {
    super('json_path', `cannot apply jsonpath \`${expression}\`${describeCause(options?.cause)}`, options);
    this.context = context;
  }
}

/** A known method could not be applied: wrong parameter, wrong value type, division by zero. */
export class ModifierError extends CustosError {
  readonly context: ModifierContext;

  constructor(readonly method: string, context: ModifierContext, options?: { cause?: unknown }) {
    super('modifier', `cannot apply modifier \`${method}\`${describeCause(options?.cause)}`, options);
    this.context = context;
  }
}

/**
 * A modifier of an AuthZEN decision aims at a parameter the evaluation does not have (only `subject`, `resource`,
 * `action` and `context` exist): it cannot be applied, so nothing is released.
 */
export class ModifierTargetError extends CustosError {
  readonly context: ModifierContext;

  constructor(readonly parameter: string, context: ModifierContext) {
    super('modifier_target', `a modifier aims at \`${parameter}\`, which an authzen evaluation does not have`);
    this.context = context;
  }
}

/** The client was configured wrongly (thrown by the constructor, never by a call). */
export class ConfigurationError extends CustosError {
  constructor(message: string) {
    super('configuration', message);
  }
}

/** The reason worth showing in a message; fetch wraps the interesting one as `fetch failed` with a cause. */
function describeCause(cause: unknown): string {
  const message = messageOf(cause);
  if (message === 'fetch failed' && typeof cause === 'object' && cause !== null && 'cause' in cause) {
    const inner = messageOf(cause.cause);
    return inner ? `: ${inner}` : '';
  }
  return message ? `: ${message}` : '';
}

/** Duck-typed: errors from another realm (a vm context, a test runner) are not `instanceof Error` here. */
function messageOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !('message' in value)) return undefined;
  return typeof value.message === 'string' ? value.message : undefined;
}
