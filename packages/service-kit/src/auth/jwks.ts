import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { SingleFlight } from '../timing/single-flight';

export interface JwksClientOptions {
  url: string;
  /** Unknown kids trigger a refetch at most this often, so forged kids cannot flood the auth service. */
  minRefetchIntervalMs?: number;
  /**
   * Keys are trusted this long after the fetch that delivered them; then the next lookup refreshes
   * the set in the background (default 5 minutes). A key the auth service withdrew (retire-key, after
   * a compromise) stops verifying within this time instead of staying trusted for the life of the process.
   */
  maxAgeMs?: number;
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
}

/** Public keys of the auth service by kid, fetched lazily and refreshed on an unknown kid. */
export class JwksClient {
  private keys = new Map<string, KeyObject>();
  private lastFetch = 0;
  private fetchedAt = 0;
  private readonly loads = new SingleFlight(() => this.load());
  private readonly minInterval: number;
  private readonly maxAgeMs: number;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: JwksClientOptions) {
    this.minInterval = options.minRefetchIntervalMs ?? 5000;
    this.maxAgeMs = options.maxAgeMs ?? 300_000;
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.fetchImpl = options.fetchImpl ?? fetch;
  }

  /** The cached key, without any I/O. */
  cached(kid: string): KeyObject | undefined {
    return this.keys.get(kid);
  }

  /** The key for `kid`, refetching once if it is unknown; undefined if the auth service does not publish it. */
  async key(kid: string): Promise<KeyObject | undefined> {
    const now = Date.now();
    const known = this.keys.get(kid);
    if (known) {
      if (now - this.fetchedAt >= this.maxAgeMs && now - this.lastFetch >= this.minInterval) {
        // Serve the key we have; the refreshed set applies from the next lookup on. A failed
        // refresh keeps the old set (availability) and is tried again after minInterval.
        this.refresh().catch(() => undefined);
      }
      return known;
    }
    if (now - this.lastFetch >= this.minInterval) await this.refresh();
    // A fetch started by a concurrent lookup (e.g. the first requests after start) may bring the key: wait for it.
    else if (this.loads.running) await this.loads.running;
    return this.keys.get(kid);
  }

  refresh(): Promise<void> {
    return this.loads.run();
  }

  private async load(): Promise<void> {
    this.lastFetch = Date.now();
    const response = await this.fetchImpl(this.options.url, { signal: AbortSignal.timeout(this.timeoutMs) });
    if (!response.ok) throw new Error(`jwks answered ${response.status}`);
    const body = (await response.json()) as { keys?: Array<JsonWebKey & { kid?: string }> };
    const next = new Map<string, KeyObject>();
    for (const jwk of body.keys ?? []) {
      if (typeof jwk.kid !== 'string') continue;
      try {
        next.set(jwk.kid, createPublicKey({ key: jwk, format: 'jwk' }));
      } catch {
        // A key we cannot read is a key we cannot verify with; skip it rather than fail all.
      }
    }
    this.keys = next;
    this.fetchedAt = Date.now();
  }
}
