import type { KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { TOKEN_ALGORITHM, TOKEN_AUDIENCE, TOKEN_ISSUER, ERROR_CODES } from '@custos/contracts';
import { problems } from '../http/problem';
import { invalidToken, missingToken } from './errors';
import { JwksClient } from './jwks';
import { Principal } from './principal';
import { revocationDigest, type RevocableToken, type RevocationCheck } from './revocation';

/** Where verification keys come from: the JWKS over HTTP, or (in the auth service) its own key store. */
export interface KeySource {
  key(kid: string): Promise<KeyObject | undefined>;
}

export interface TokenVerifierOptions {
  /** JWKS URL of the auth service; ignored when `keys` is given. */
  jwksUrl?: string;
  keys?: KeySource;
  issuer?: string;
  audience?: string;
  clockToleranceSeconds?: number;
  fetchImpl?: typeof fetch;
  minRefetchIntervalMs?: number;
  /** How long a cached key set is trusted before it is refreshed (JwksClient maxAgeMs, default 5 min). */
  jwksMaxAgeMs?: number;
  /**
   * How long a verified token is remembered before its signature is checked again (default 60 s).
   * Without a bound, a token signed with a key that was since withdrawn (retire-key after a
   * compromise) would stay accepted until its own `exp`, which a forger chooses.
   */
  cacheTtlMs?: number;
  /**
   * Revoked clients and tokens (a RevocationList), consulted on every request, cached token or not.
   * Until it has been loaded once, tokens are answered 503: accepting them could accept a revoked one.
   */
  revocations?: RevocationCheck;
}

interface CachedPrincipal {
  principal: Principal;
  expiresAtMs: number;
  notBeforeMs: number;
  /** When the cache entry lapses (the signature is checked again then), at most `exp`. */
  recheckAtMs: number;
  revocable: RevocableToken;
}

const CACHE_LIMIT = 10_000;

/**
 * Verifies Custos access tokens locally against the auth service's JWKS.
 * A verified token is remembered for `cacheTtlMs` (and never past its expiry): signature checks
 * dominate the cost of a decision otherwise, and the bound lets a withdrawn key take effect.
 */
export class TokenVerifier {
  private readonly keys: KeySource;
  private readonly cache = new Map<string, CachedPrincipal>();
  /** The header `cached` answered last, and its entry (an entry of `cache`, or one `cache` dropped and that lapsed since). */
  private lastHeader: string | undefined;
  private lastEntry: CachedPrincipal | undefined;
  private readonly issuer: string;
  private readonly audience: string;
  private readonly toleranceMs: number;
  private readonly cacheTtlMs: number;
  private readonly revocations: RevocationCheck | undefined;

  constructor(options: TokenVerifierOptions) {
    this.keys = options.keys ?? TokenVerifier.jwksClient(options);
    this.cacheTtlMs = options.cacheTtlMs ?? 60_000;
    this.revocations = options.revocations;
    this.issuer = options.issuer ?? TOKEN_ISSUER;
    this.audience = options.audience ?? TOKEN_AUDIENCE;
    this.toleranceMs = (options.clockToleranceSeconds ?? 30) * 1000;
  }

  private static jwksClient(options: TokenVerifierOptions): JwksClient {
    if (options.jwksUrl === undefined) throw new Error('TokenVerifier needs jwksUrl or keys');
    return new JwksClient({
      url: options.jwksUrl,
      ...(options.fetchImpl ? { fetchImpl: options.fetchImpl } : {}),
      ...(options.minRefetchIntervalMs !== undefined ? { minRefetchIntervalMs: options.minRefetchIntervalMs } : {}),
      ...(options.jwksMaxAgeMs !== undefined ? { maxAgeMs: options.jwksMaxAgeMs } : {}),
    });
  }

  /**
   * The principal of an `Authorization` header value, or a 401/503 problem. Verified tokens are remembered by the
   * whole header value (`cached` answers those without a promise); the revocation list is asked on every call.
   */
  async authenticate(header: string | undefined): Promise<Principal> {
    const known = this.cached(header);
    if (known !== undefined) return known;
    const token = bearerToken(header);
    const key = header ?? '';
    const now = Date.now();
    const hit = this.cache.get(key);
    let verified: CachedPrincipal | undefined;
    if (hit) {
      if (this.fresh(hit, now)) verified = hit;
      else this.cache.delete(key);
    }
    if (!verified) {
      verified = await this.verify(token);
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(key, verified);
      this.lastHeader = key;
      this.lastEntry = verified;
    }
    await this.refuseRevoked(verified.revocable);
    return verified.principal;
  }

  /**
   * The principal of a header whose token was verified before and is still within its cache time, checked against
   * the revocation list now (a revoked token is refused at once, 401); undefined when the answer needs a signature
   * check or the list's first load, which only `authenticate` does. The hot path of the decision routes: a token is
   * verified once, then costs a map lookup and the revocation check per request, without a promise.
   */
  cached(header: string | undefined): Principal | undefined {
    if (header === undefined) return undefined;
    // A PEP sends the same token request after request: comparing with the last one is cheaper than hashing it.
    const hit = header === this.lastHeader ? this.lastEntry : this.cache.get(header);
    if (hit === undefined || !this.fresh(hit, Date.now())) return undefined;
    this.lastHeader = header;
    this.lastEntry = hit;
    const revocations = this.revocations;
    if (revocations !== undefined) {
      if (!revocations.isLoaded()) return undefined;
      if (revocations.isRevoked(hit.revocable)) throw invalidToken('the token has been revoked');
    }
    return hit.principal;
  }

  private fresh(entry: CachedPrincipal, now: number): boolean {
    return now < entry.recheckAtMs && now < entry.expiresAtMs + this.toleranceMs && now + this.toleranceMs >= entry.notBeforeMs;
  }

  private async refuseRevoked(token: RevocableToken): Promise<void> {
    if (!this.revocations) return;
    try {
      await this.revocations.ready();
    } catch {
      throw problems.serviceUnavailable(ERROR_CODES.serviceUnavailable, 'token revocations cannot be fetched right now', 1);
    }
    if (this.revocations.isRevoked(token)) throw invalidToken('the token has been revoked');
  }

  private async verify(token: string): Promise<CachedPrincipal> {
    const decoded = jwt.decode(token, { complete: true });
    if (!decoded || typeof decoded.payload === 'string') throw invalidToken('malformed token');
    if (decoded.header.alg !== TOKEN_ALGORITHM) throw invalidToken(`algorithm must be ${TOKEN_ALGORITHM}`);
    const kid = decoded.header.kid;
    if (typeof kid !== 'string' || kid === '') throw invalidToken('the token names no key');
    let key;
    try {
      key = await this.keys.key(kid);
    } catch {
      throw problems.serviceUnavailable(ERROR_CODES.serviceUnavailable, 'signing keys cannot be fetched right now', 1);
    }
    if (!key) throw invalidToken('unknown signing key');
    let claims: jwt.JwtPayload;
    try {
      claims = jwt.verify(token, key, {
        algorithms: [TOKEN_ALGORITHM],
        issuer: this.issuer,
        audience: this.audience,
        clockTolerance: this.toleranceMs / 1000,
      }) as jwt.JwtPayload;
    } catch (error) {
      throw invalidToken(describeJwtError(error));
    }
    const expiresAtMs = (claims.exp ?? 0) * 1000;
    const principal = toPrincipal(claims);
    return {
      principal,
      revocable: {
        subjectDigest: revocationDigest(principal.clientId),
        tokenDigest: principal.token.id === undefined ? undefined : revocationDigest(principal.token.id),
        issuedAt: principal.token.issuedAt,
      },
      expiresAtMs,
      notBeforeMs: (claims.nbf ?? 0) * 1000,
      recheckAtMs: Math.min(Date.now() + this.cacheTtlMs, expiresAtMs + this.toleranceMs),
    };
  }
}

function bearerToken(header: string | undefined): string {
  if (header === undefined || header.trim() === '') throw missingToken();
  const token = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header)?.[1];
  if (token === undefined) {
    if (!/^Bearer\b/i.test(header)) throw missingToken();
    throw invalidToken('malformed authorization header');
  }
  return token;
}

function describeJwtError(error: unknown): string {
  if (error instanceof jwt.TokenExpiredError) return 'the token has expired';
  if (error instanceof jwt.NotBeforeError) return 'the token is not valid yet';
  if (error instanceof jwt.JsonWebTokenError) {
    if (/audience/.test(error.message)) return 'wrong audience';
    if (/issuer/.test(error.message)) return 'wrong issuer';
    if (/signature/.test(error.message)) return 'bad signature';
    return 'malformed token';
  }
  return 'malformed token';
}

function toPrincipal(claims: jwt.JwtPayload): Principal {
  if (typeof claims.sub !== 'string' || typeof claims.exp !== 'number') throw invalidToken('missing claims');
  const scope = typeof claims.scope === 'string' ? claims.scope : '';
  const solutions = Array.isArray(claims.solutions) ? claims.solutions.filter((s): s is string => typeof s === 'string') : [];
  const token = {
    id: typeof claims.jti === 'string' ? claims.jti : undefined,
    // A token without `iat` counts as issued at the epoch: revoking its client covers it.
    issuedAt: typeof claims.iat === 'number' ? claims.iat : 0,
    expiresAt: claims.exp,
  };
  return new Principal(claims.sub, new Set(scope.split(' ').filter(Boolean)), new Set(solutions), token);
}

