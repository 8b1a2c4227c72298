/** An access token and how long the token endpoint says it lives. */
export interface IssuedToken {
  accessToken: string;
  expiresInMs: number;
}

interface CachedToken {
  accessToken: string;
  refreshAt: number;
  expiresAt: number;
}

/** How long before expiry a token is replaced: a minute, or half its lifetime when that is shorter. */
export const refreshMarginMs = (lifetimeMs: number): number => Math.min(60_000, lifetimeMs / 2);

/**
 * The client's access token: fetched once, shared by concurrent calls (one fetch in flight at most), replaced
 * before it expires, and dropped when the pdp refuses it. A token due for renewal but still valid is used while
 * the renewal runs in the background, so decisions never wait for the token endpoint then, and an auth-service
 * outage costs nothing until the token really expires.
 */
export class TokenSource {
  private current: CachedToken | undefined;
  private inflight: Promise<string> | undefined;

  constructor(
    private readonly issue: () => Promise<IssuedToken>,
    private readonly now: () => number = Date.now,
  ) {}

  async get(): Promise<string> {
    const current = this.current;
    const now = this.now();
    if (current && now < current.refreshAt) return current.accessToken;
    const refreshed = this.refresh();
    if (current && now < current.expiresAt) {
      // The next call past the renewal point tries again; until then the valid token serves.
      refreshed.catch(() => undefined);
      return current.accessToken;
    }
    return refreshed;
  }

  /** Forgets `accessToken` (the pdp answered 401 to it); a newer token fetched meanwhile is kept. */
  invalidate(accessToken: string): void {
    if (this.current?.accessToken === accessToken) this.current = undefined;
  }

  private refresh(): Promise<string> {
    this.inflight ??= this.issue()
      .then((issued) => {
        const obtained = this.now();
        this.current = {
          accessToken: issued.accessToken,
          refreshAt: obtained + issued.expiresInMs - refreshMarginMs(issued.expiresInMs),
          expiresAt: obtained + issued.expiresInMs,
        };
        return issued.accessToken;
      })
      .finally(() => (this.inflight = undefined));
    return this.inflight;
  }
}
