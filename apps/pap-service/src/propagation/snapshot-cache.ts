import type { OutgoingSnapshot } from '@custos/contracts';

/** An answer: the set read, its messages as they go onto the wire, and how it was read (for the log). */
export interface EncodedSnapshot {
  snapshot: OutgoingSnapshot;
  messages: Uint8Array[];
  /** `rows`: every deployed row read; `changes`: a kept set brought forward by the changes since. */
  read: 'rows' | 'changes';
}

/**
 * The encoded answer of the newest whole-set snapshot this pap read, kept for the revision it was read at (issue 26,
 * item 2). Every change of what the pdps decide with takes a revision (store/revisions.ts), so two whole-set reads at
 * one revision give the same set: a replica that starts, or takes a snapshot for a gap, while the set stays at a
 * revision already read gets the messages at once instead of pap reading and encoding 10,000 rows again (720–920 ms
 * of CPU at 10,000 on this machine); once the revision moved, the kept set is brought forward by what changed
 * (snapshot-forward.ts) rather than read again. Requests that arrive while one read is under way share it when it is at least as
 * new as the revision they saw. A write that goes around the revision (SQL straight into pap's tables) is not seen by
 * the replicas' periodic check either; it must record a change (a `resync` will do).
 */
export class SnapshotCache {
  private kept: EncodedSnapshot | undefined;
  private keptPayload = 0;
  private reading: { payload: number; answer: Promise<EncodedSnapshot> } | undefined;

  /** The kept answer when it is `revision`'s and was cut for `maxPayload`. */
  at(revision: number, maxPayload: number): EncodedSnapshot | undefined {
    return this.kept?.snapshot.revision === revision && this.keptPayload === maxPayload ? this.kept : undefined;
  }

  /** The set of the kept answer, whatever its revision: what a newer one can be made from (snapshot-forward.ts). */
  newest(): OutgoingSnapshot | undefined {
    return this.kept?.snapshot;
  }

  /**
   * The answer for a set at `revision` or newer: the read under way when it turns out new enough, else a new read
   * (`read`), which is kept when it is the newest yet.
   */
  async read(revision: number, maxPayload: number, read: () => Promise<EncodedSnapshot>): Promise<EncodedSnapshot> {
    const under = this.reading;
    if (under !== undefined && under.payload === maxPayload) {
      const shared = await under.answer.catch(() => undefined);
      if (shared !== undefined && shared.snapshot.revision >= revision) return shared;
    }
    const answer = read();
    const reading = { payload: maxPayload, answer };
    this.reading = reading;
    try {
      const encoded = await answer;
      if (this.kept === undefined || encoded.snapshot.revision >= this.kept.snapshot.revision) {
        this.kept = encoded;
        this.keptPayload = maxPayload;
      }
      return encoded;
    } finally {
      if (this.reading === reading) this.reading = undefined;
    }
  }
}
