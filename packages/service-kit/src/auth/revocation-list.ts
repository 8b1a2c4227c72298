import { SingleFlight } from '../timing/single-flight';
import type { Logger } from '../observability/logger';
import {
  parseRevocationDocument,
  revocationSubject,
  RevocationSet,
  type RevocableToken,
  type RevocationCheck,
} from './revocation';

/** The part of a NATS connection the list needs (nats.js `NatsConnection` fits). */
export interface RevocationMessages {
  subscribe(subject: string, options: { callback: (error: Error | null, message: { data: Uint8Array }) => void }): { unsubscribe(): void };
}

export interface RevocationListOptions {
  /** auth's `GET /oauth/revocations`. */
  url: string;
  /** The whole list is fetched again this often, so a message missed (NATS down) is applied late, not never. */
  pollIntervalMs?: number;
  /** While the list was never loaded, a failed load is tried again at most this often (not per request). */
  retryIntervalMs?: number;
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
  logger?: Logger;
}

export const DEFAULT_REVOCATION_POLL_MS = 5000;

/**
 * The revocation list of a pap or pdp replica: loaded from auth before the first token is accepted,
 * kept current by auth's NATS messages (applied as they arrive), and fetched again every
 * `pollIntervalMs` in case a message was missed. A replica that starts later loads the whole list, so
 * revocations survive restarts. Once loaded, a failed poll keeps the list it has.
 */
export class RevocationList implements RevocationCheck {
  private readonly entries = new RevocationSet();
  private loaded = false;
  private readonly loads = new SingleFlight(() => this.load());
  private lastFailure: { at: number; error: Error } | undefined;
  private etag: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private followed: RevocationMessages | undefined;
  private subscription: { unsubscribe(): void } | undefined;
  private readonly pollIntervalMs: number;
  private readonly retryIntervalMs: number;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: RevocationListOptions) {
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_REVOCATION_POLL_MS;
    this.retryIntervalMs = options.retryIntervalMs ?? 1000;
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.fetchImpl = options.fetchImpl ?? fetch;
  }

  /** Loads the list now and every `pollIntervalMs` from now on. */
  start(): this {
    if (this.timer) return this;
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), this.pollIntervalMs);
    this.timer.unref();
    void this.refresh().catch(() => undefined);
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.subscription?.unsubscribe();
    this.subscription = undefined;
    this.followed = undefined;
  }

  /**
   * Applies every revocation auth publishes on this connection (`<prefix>.auth.revocations`). Called again
   * with the same connection it does nothing; with a new one (after the old one closed) it subscribes there
   * and reloads the list, which may have changed while no connection was there.
   */
  follow(messages: RevocationMessages, prefix: string): void {
    if (this.followed === messages) return;
    this.subscription?.unsubscribe();
    this.followed = messages;
    this.subscription = messages.subscribe(revocationSubject(prefix), {
      callback: (error, message) => {
        if (error) return;
        this.receive(message.data);
      },
    });
    if (this.loaded) void this.refresh().catch(() => undefined);
  }

  /** Applies one message of the revocation subject; a malformed one is logged and ignored. */
  receive(data: Uint8Array): void {
    try {
      this.entries.merge(parseRevocationDocument(JSON.parse(Buffer.from(data).toString('utf8'))));
    } catch (error) {
      this.options.logger?.warn({ err: error }, 'ignoring a malformed revocation message');
    }
  }

  ready(): Promise<void> {
    if (this.loaded) return Promise.resolve();
    if (this.loads.running) return this.loads.running;
    // auth is down and we have no list: fail fast rather than ask auth on every request.
    if (this.lastFailure && Date.now() - this.lastFailure.at < this.retryIntervalMs) return Promise.reject(this.lastFailure.error);
    return this.refresh();
  }

  isLoaded(): boolean {
    return this.loaded;
  }

  isRevoked(token: RevocableToken): boolean {
    return this.entries.isRevoked(token);
  }

  /** How many unexpired revocations are known (metrics, tests). */
  get size(): number {
    return this.entries.size;
  }

  /** Fetches the whole list from auth (one fetch at a time). */
  refresh(): Promise<void> {
    return this.loads.run();
  }

  private async load(): Promise<void> {
    try {
      const headers: Record<string, string> = this.etag !== undefined && this.loaded ? { 'If-None-Match': this.etag } : {};
      const response = await this.fetchImpl(this.options.url, { headers, signal: AbortSignal.timeout(this.timeoutMs) });
      if (response.status === 304) return;
      if (!response.ok) throw new Error(`the revocation list answered ${response.status}`);
      this.entries.merge(parseRevocationDocument(await response.json()));
      this.etag = response.headers.get('etag') ?? undefined;
      if (!this.loaded) this.options.logger?.info({ revocations: this.entries.size }, 'revocation list loaded');
      this.loaded = true;
      this.lastFailure = undefined;
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      if (!this.lastFailure) this.options.logger?.warn({ err: failure }, 'revocation list cannot be fetched; retrying');
      this.lastFailure = { at: Date.now(), error: failure };
      throw failure;
    }
  }
}
