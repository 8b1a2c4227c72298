import { createHash } from 'node:crypto';

/**
 * Revoked access tokens, as auth publishes them (`GET /oauth/revocations` and NATS) and verifiers apply them.
 * An entry names what it covers only by a digest (SHA-256, base64url): a client (`sub`, every token it
 * was issued up to `not_after`) or one token (`jti`). So the public list reveals no client id, only
 * opaque digests and expiries. Entries expire with the last token they cover.
 */
export interface RevocationEntry {
  type: 'sub' | 'jti';
  /** revocationDigest(sub) or revocationDigest(jti). */
  id: string;
  /** `sub` only: tokens issued (`iat`, seconds) at or before this are revoked; later ones are not. */
  notAfter?: number;
  /** Seconds since the epoch after which no token it covers is valid any more. */
  expiresAt: number;
}

/** The body of `GET /oauth/revocations` and of every message on the revocation subject. */
export interface RevocationDocument {
  revocations: Array<{ type: 'sub' | 'jti'; id: string; not_after?: number; expires_at: number }>;
}

/** NATS subject of revocations, under the stack's prefix. */
export const revocationSubject = (prefix: string): string => `${prefix}.auth.revocations`;

/** The opaque id of a client id or a token id in the revocation list. */
export const revocationDigest = (value: string): string => createHash('sha256').update(value, 'utf8').digest('base64url');

const DIGEST = /^[A-Za-z0-9_-]{43}$/;
const isSeconds = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

export function toRevocationDocument(entries: readonly RevocationEntry[]): RevocationDocument {
  return {
    revocations: entries.map((entry) =>
      entry.type === 'sub'
        ? { type: 'sub', id: entry.id, not_after: entry.notAfter ?? 0, expires_at: entry.expiresAt }
        : { type: 'jti', id: entry.id, expires_at: entry.expiresAt },
    ),
  };
}

/** The entries of a revocation document; a malformed document is refused whole (auth sent something else). */
export function parseRevocationDocument(body: unknown): RevocationEntry[] {
  const list = (body as { revocations?: unknown } | null)?.revocations;
  if (!Array.isArray(list)) throw new Error('a revocation document holds a `revocations` list');
  return list.map((item: unknown, index) => {
    const entry = item as { type?: unknown; id?: unknown; not_after?: unknown; expires_at?: unknown } | null;
    const type = entry?.type;
    if ((type !== 'sub' && type !== 'jti') || typeof entry?.id !== 'string' || !DIGEST.test(entry.id) || !isSeconds(entry.expires_at)) {
      throw new Error(`revocation ${index} is malformed`);
    }
    if (type === 'jti') return { type, id: entry.id, expiresAt: entry.expires_at };
    if (!isSeconds(entry.not_after)) throw new Error(`revocation ${index} is malformed`);
    return { type, id: entry.id, notAfter: entry.not_after, expiresAt: entry.expires_at };
  });
}

/** What a verifier asks of a token: the digests of its `sub` and `jti`, and its `iat`. */
export interface RevocableToken {
  subjectDigest: string;
  tokenDigest: string | undefined;
  issuedAt: number;
}

/** The revocations a verifier consults on every request, cached token or not. */
export interface RevocationCheck {
  /** Resolves once the list has been loaded at least once; rejects while it cannot be. */
  ready(): Promise<void>;
  /** Whether the list has been loaded (then `ready` would resolve at once): lets a check skip the promise. */
  isLoaded(): boolean;
  isRevoked(token: RevocableToken): boolean;
}

/** Revocation entries in memory, by digest; expired entries are dropped as they are met and on every merge. */
export class RevocationSet {
  private readonly subjects = new Map<string, RevocationEntry>();
  private readonly tokens = new Map<string, RevocationEntry>();

  constructor(private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000)) {}

  /** Adds entries (never removes one: a later `not_after` or expiry wins). */
  merge(entries: readonly RevocationEntry[]): void {
    const now = this.nowSeconds();
    for (const entry of entries) {
      if (entry.expiresAt < now) continue;
      const map = entry.type === 'sub' ? this.subjects : this.tokens;
      const known = map.get(entry.id);
      map.set(
        entry.id,
        known
          ? {
              ...entry,
              expiresAt: Math.max(known.expiresAt, entry.expiresAt),
              ...(entry.type === 'sub' ? { notAfter: Math.max(known.notAfter ?? 0, entry.notAfter ?? 0) } : {}),
            }
          : entry,
      );
    }
    this.sweep(now);
  }

  isRevoked(token: RevocableToken): boolean {
    const now = this.nowSeconds();
    const subject = this.subjects.get(token.subjectDigest);
    if (subject && subject.expiresAt >= now && token.issuedAt <= (subject.notAfter ?? 0)) return true;
    if (token.tokenDigest === undefined) return false;
    const single = this.tokens.get(token.tokenDigest);
    return single !== undefined && single.expiresAt >= now;
  }

  get size(): number {
    return this.subjects.size + this.tokens.size;
  }

  private sweep(now: number): void {
    for (const map of [this.subjects, this.tokens]) for (const [id, entry] of map) if (entry.expiresAt < now) map.delete(id);
  }
}
