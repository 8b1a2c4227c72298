import type { RevocationEntry } from '@custos/service-kit';
import type { Clock } from '../ratelimit/failure-limiter';
import type { RevocationFeed } from './feed';
import type { RevocationStore } from './revocation-store';

/** Revokes in the database (the list auth serves) and announces it on the feed. */
export class Revoker {
  constructor(
    readonly store: RevocationStore,
    private readonly feed: RevocationFeed,
    private readonly clock: Clock = Date.now,
  ) {}

  /** Every token of `clientId` issued until now (the client was deleted, or its secret rotated with revocation). */
  async revokeClient(clientId: string): Promise<RevocationEntry> {
    return this.announce(await this.store.revokeClient(clientId, this.clock()));
  }

  /** One token (`jti`), until its expiry. */
  async revokeToken(tokenId: string, expiresAt: number): Promise<RevocationEntry> {
    return this.announce(await this.store.revokeToken(tokenId, expiresAt));
  }

  /** Tells pap and pdp of an entry stored by a transaction of the caller's (once it committed). */
  announce(entry: RevocationEntry): RevocationEntry {
    this.feed.publish([entry]);
    return entry;
  }
}
