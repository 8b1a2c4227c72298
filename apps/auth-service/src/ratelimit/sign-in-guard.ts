import { createHash } from 'node:crypto';
import { setTimeout as wait } from 'node:timers/promises';
import type { FailureLimiter, LimitedKey } from './failure-limiter';

/** How failed client authentications are limited (README, docs/security.md). */
export interface SignInLimits {
  /**
   * Failures of one client id from one address within a window; then that client id is refused (429) from that
   * address. The same number of failures of a client id from all addresses together slows every attempt for it.
   */
  perClientAndSource: number;
  /** Failures from one address for any client ids within a window; then the address is refused (429). */
  perSource: number;
  /** How long an attempt for a client id under attack from elsewhere waits before its secret is checked. */
  slowDownMs: number;
}

export const DEFAULT_SLOW_DOWN_MS = 1000;

export type Admission = { admitted: true; keys: readonly string[] } | { admitted: false; retryAfterSeconds: number };

export interface SignInGuardHooks {
  /** Waits `ms`; tests pass their own so nothing depends on wall-clock time. */
  pause?: (ms: number) => Promise<void>;
  /** Told of every slowed attempt (a metric). */
  slowed?: () => void;
}

/**
 * A limiter key of a claimed client id, an address or both: digested, so any text a caller sends (NUL, lone
 * surrogates) can be stored, and the table holds neither client ids nor addresses.
 */
function limitKey(kind: 'client' | 'source' | 'pair', ...values: string[]): string {
  return `${kind}:${createHash('sha256').update(JSON.stringify(values), 'utf8').digest('base64url')}`;
}

/**
 * Decides whether a client authentication may be tried. A hard limit per (client id, address), so that wrong
 * secrets from one address lock that client out there and nowhere else; a hard limit per address, against
 * spraying many client ids from one place; and per client id a soft limit only: past it, every attempt for the
 * id waits `slowDownMs` (bounded, the same for right and wrong secrets), so failures from many addresses cost
 * an attacker time but never refuse the client's right secret from an address that has not failed.
 */
export class SignInGuard {
  private readonly pause: (ms: number) => Promise<void>;

  constructor(
    private readonly limiter: FailureLimiter,
    readonly limits: SignInLimits,
    private readonly hooks: SignInGuardHooks = {},
  ) {
    this.pause = hooks.pause ?? ((ms) => wait(ms));
    const { perClientAndSource, perSource, slowDownMs } = limits;
    if (!(perClientAndSource >= 1) || !(perSource >= 1) || !(slowDownMs >= 0)) throw new Error('sign-in limits must be positive');
  }

  /**
   * Counts the attempt as failed until it is proven right (`forgive` then), so parallel guesses cannot all pass;
   * an attempt that is refused counts nothing.
   */
  async admit(clientId: string, source: string): Promise<Admission> {
    // Real ids are at most 128 characters; longer claims share a bounded key.
    const claimed = clientId.slice(0, 128);
    const client = limitKey('client', claimed);
    const keys: LimitedKey[] = [
      { key: limitKey('pair', claimed, source), limit: this.limits.perClientAndSource },
      { key: limitKey('source', source), limit: this.limits.perSource },
      { key: client, limit: Infinity },
    ];
    const attempt = await this.limiter.attempt(keys);
    if (!attempt.admitted) return attempt;
    // This attempt is among the failures counted; the ones before it decide.
    const earlierFailures = (attempt.failures.get(client) ?? 1) - 1;
    if (earlierFailures >= this.limits.perClientAndSource && this.limits.slowDownMs > 0) {
      this.hooks.slowed?.();
      await this.pause(this.limits.slowDownMs);
    }
    return { admitted: true, keys: keys.map(({ key }) => key) };
  }

  /** Takes back the failure an admitted attempt was counted as: its credentials were right (or never checked). */
  forgive(admission: { keys: readonly string[] }): Promise<void> {
    return this.limiter.forgive(admission.keys);
  }
}
