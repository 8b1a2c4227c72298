import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

export interface JwksClientOptions {
  url: string;
  /** Unknown kids trigger a refetch at most this often, so forged kids cannot flood the auth service. */
  minRefetchIntervalMs?: number;
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
}

/** Public keys of the auth service by kid, fetched lazily and refreshed on an unknown kid. */
export class JwksClient {
  private keys = new Map<string, KeyObject>();
  private lastFetch = 0;
  private inflight: Promise<void> | undefined;
  private readonly minInterval: number;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(private readonly options: JwksClientOptions) {
    this.minInterval = options.minRefetchIntervalMs ?? 5000;
    this.timeoutMs = options.timeoutMs ?? 2000;
    this.fetchImpl = options.fetchImpl ?? fetch;
  }

  /** The cached key, without any I/O. */
  cached(kid: string): KeyObject | undefined {
    return this.keys.get(kid);
  }

  /** The key for `kid`, refetching once if it is unknown; undefined if the auth service does not publish it. */
  async key(kid: string): Promise<KeyObject | undefined> {
    const known = this.keys.get(kid);
    if (known) return known;
    if (Date.now() - this.lastFetch >= this.minInterval) await this.refresh();
    return this.keys.get(kid);
  }

  refresh(): Promise<void> {
    this.inflight ??= this.load().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
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
  }
}
