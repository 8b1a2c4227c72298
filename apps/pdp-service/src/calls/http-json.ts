import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { egressRefusal, type EgressPolicy, type Tracing } from '@custos/service-kit';
import { activeEgressPolicy, EgressRefused, guardedLookup } from '../egress';

/** Largest answer read from a PIP or PXP. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** Why a call failed; the message never holds parameter values. */
export class CallError extends Error {
  constructor(
    message: string,
    readonly kind: 'timeout' | 'network' | 'status' | 'answer' | 'refused' | 'egress',
  ) {
    super(message);
  }
}

export interface PostOptions {
  timeoutMs: number;
  agent: HttpAgent | HttpsAgent;
  /** Sent besides the JSON ones (e.g. a PXP execute's Idempotency-Key). */
  headers?: Record<string, string>;
  /** Where calls may go (PDP_CALL_ALLOW, docs/security.md, egress). */
  egress: EgressPolicy;
}

/**
 * POST a JSON body and read a JSON answer, with a deadline covering connect, send and the whole answer. Any status
 * other than 2xx, an answer over 1 MiB or one that is not JSON is a CallError.
 */
export function postJson(url: URL, body: unknown, options: PostOptions): Promise<unknown> {
  return new Promise<unknown>((resolve, reject) => {
    const refused = egressRefusal(url, options.egress);
    if (refused !== undefined) return reject(new CallError(`the call is refused: ${refused}`, 'egress'));
    const payload = Buffer.from(JSON.stringify(body), 'utf8');
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    let settled = false;
    const finish = (error: CallError | undefined, value?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (error) {
        request.destroy();
        reject(error);
      } else {
        resolve(value);
      }
    };
    const request = send(
      url,
      {
        method: 'POST',
        agent: options.agent,
        lookup: guardedLookup(url, options.egress),
        headers: { ...options.headers, 'Content-Type': 'application/json', Accept: 'application/json', 'Content-Length': payload.length },
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) return finish(new CallError(`the answer exceeds ${MAX_ANSWER_BYTES} bytes`, 'answer'));
          chunks.push(chunk);
        });
        response.on('error', () => finish(new CallError('the answer was cut off', 'network')));
        response.on('end', () => {
          if (status < 200 || status > 299) return finish(new CallError(`answered with status ${status}`, 'status'));
          const text = Buffer.concat(chunks, size).toString('utf8');
          try {
            finish(undefined, JSON.parse(text) as unknown);
          } catch {
            finish(new CallError('the answer is not JSON', 'answer'));
          }
        });
      },
    );
    const timer = setTimeout(() => finish(new CallError(`no answer within ${options.timeoutMs} ms`, 'timeout')), options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) =>
      finish(
        error instanceof EgressRefused
          ? new CallError(`the call is refused: ${error.message}`, 'egress')
          : new CallError(`the call failed: ${error.code ?? 'network error'}`, 'network'),
      ),
    );
    request.end(payload);
  });
}

export interface TargetOptions {
  timeoutMs: number;
  maxConcurrency: number;
  breakerFailures: number;
  breakerOpenMs: number;
  /** The composed pdp's PDP_CALL_ALLOW; without it, the one of this process's environment. */
  egress?: EgressPolicy;
  /** Told of every call the egress policy refuses; `first` once per URL, so a log says it once. */
  onEgressRefusal?: (url: URL, reason: string, first: boolean) => void;
  now?: () => number;
  /** When on, each call is a client span of this name under the active span, its `traceparent` sent along. */
  tracing?: { tracing: Tracing; span: string };
}

export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * One PIP or PXP URL: a keep-alive agent, bounded concurrency (calls beyond `maxConcurrency` in flight fail at once,
 * so a slow endpoint cannot pile up work or sockets) and a circuit breaker (after `breakerFailures` failures in a row
 * calls fail at once for `breakerOpenMs`; then one trial call decides whether it closes again). Nothing here blocks
 * a decision that does not call this URL.
 */
export class CallTarget {
  private readonly agent: HttpAgent | HttpsAgent;
  private inFlight = 0;
  private failures = 0;
  private openUntil = 0;
  private trial = false;
  private egressReported = false;
  private readonly now: () => number;

  constructor(
    readonly url: URL,
    private readonly options: TargetOptions,
  ) {
    const agentOptions = { keepAlive: true, maxSockets: options.maxConcurrency, maxFreeSockets: Math.min(options.maxConcurrency, 16) };
    this.agent = url.protocol === 'https:' ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
    this.now = options.now ?? Date.now;
  }

  get state(): CircuitState {
    if (this.failures < this.options.breakerFailures) return 'closed';
    return this.now() < this.openUntil ? 'open' : 'half-open';
  }

  get pending(): number {
    return this.inFlight;
  }

  post(body: unknown, timeoutMs = this.options.timeoutMs, headers?: Record<string, string>): Promise<unknown> {
    const traced = this.options.tracing;
    if (traced?.tracing.enabled === true) return this.tracedPost(traced.tracing, traced.span, body, timeoutMs, headers);
    return this.send(body, timeoutMs, headers);
  }

  /** The call as a client span, the W3C trace context of the span in its headers. */
  private async tracedPost(tracing: Tracing, name: string, body: unknown, timeoutMs: number, headers?: Record<string, string>): Promise<unknown> {
    const { url } = this;
    const span = tracing.startSpan(name, {
      kind: 'client',
      attributes: { 'http.request.method': 'POST', 'url.full': `${url.protocol}//${url.host}${url.pathname}`, 'server.address': url.hostname },
    });
    const sent = { ...headers };
    tracing.inject(span, sent);
    try {
      const answer = await this.send(body, timeoutMs, sent);
      tracing.end(span);
      return answer;
    } catch (error) {
      tracing.end(span, error);
      throw error;
    }
  }

  private async send(body: unknown, timeoutMs: number, headers?: Record<string, string>): Promise<unknown> {
    const state = this.state;
    if (state === 'open') throw new CallError('the circuit is open after repeated failures', 'refused');
    if (state === 'half-open') {
      if (this.trial) throw new CallError('the circuit is half open and a trial call is running', 'refused');
      this.trial = true;
    }
    if (this.inFlight >= this.options.maxConcurrency) {
      if (state === 'half-open') this.trial = false;
      throw new CallError(`${this.options.maxConcurrency} calls are in flight already`, 'refused');
    }
    this.inFlight++;
    try {
      const egress = this.options.egress ?? activeEgressPolicy();
      const answer = await postJson(this.url, body, { timeoutMs, agent: this.agent, egress, ...(headers === undefined ? {} : { headers }) });
      this.failures = 0;
      return answer;
    } catch (error) {
      this.failures++;
      if (this.failures >= this.options.breakerFailures) this.openUntil = this.now() + this.options.breakerOpenMs;
      if (error instanceof CallError && error.kind === 'egress') {
        this.options.onEgressRefusal?.(this.url, error.message, !this.egressReported);
        this.egressReported = true;
      }
      throw error;
    } finally {
      this.inFlight--;
      if (state === 'half-open') this.trial = false;
    }
  }

  /** A failure that is the endpoint's fault although the call itself worked (e.g. a mistyped answer). */
  fault(): void {
    this.failures++;
    if (this.failures >= this.options.breakerFailures) this.openUntil = this.now() + this.options.breakerOpenMs;
  }

  close(): void {
    this.agent.destroy();
  }
}

/** CallTargets by `<url>/execute`, created on first use. */
export class CallTargets {
  private readonly targets = new Map<string, CallTarget>();

  constructor(private readonly options: TargetOptions) {}

  /** The target for a component URL (`POST <url>/execute`, api.md §6); undefined for a URL that does not parse. */
  forComponentUrl(componentUrl: string): CallTarget | undefined {
    const existing = this.targets.get(componentUrl);
    if (existing !== undefined) return existing;
    let url: URL;
    try {
      url = new URL(`${componentUrl.replace(/\/+$/, '')}/execute`);
    } catch {
      return undefined;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    const target = new CallTarget(url, this.options);
    this.targets.set(componentUrl, target);
    return target;
  }

  close(): void {
    for (const target of this.targets.values()) target.close();
    this.targets.clear();
  }
}
