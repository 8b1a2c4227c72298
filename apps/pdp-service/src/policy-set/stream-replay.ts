import type { JetStreamManager, NatsConnection } from 'nats';
import { parseChange, policySubjects, type PolicyChange } from '@custos/contracts';

/** Most changes one replay reads; a replica further behind takes a snapshot (or replays again from where it got). */
export const MAX_REPLAY = 1000;

/** A JetStream request that takes longer than this fails the replay; the snapshot is the fallback anyway. */
const API_TIMEOUT_MS = 2000;

/**
 * Reads changes back from pap's JetStream stream (`<prefix>_policy_changes`, contracts/nats.ts).
 *
 * pap publishes every change to that stream and counts it delivered once JetStream acknowledged it; the pdps hear
 * changes on a core subscription of the same subject, which is faster than a consumer but forgets what it missed
 * (a reconnect, a slow consumer). The stream remembers: a replica that missed changes asks it for them before it
 * asks pap for a snapshot, so it catches up even while pap is down. Whatever the stream cannot give (it does not
 * exist, JetStream is off, the changes aged out) the snapshot still gives.
 *
 * Stream sequence and revision grow together (one publisher, in revision order), so the first change after a
 * revision is found by bisection over the sequence, then read in order.
 */
export class StreamReplay {
  private readonly stream: string;

  constructor(
    private readonly nc: NatsConnection,
    prefix: string,
  ) {
    this.stream = policySubjects(prefix).stream;
  }

  /** Changes after `revision`, oldest first, at most `max`; [] when the stream holds none. Rejects when it cannot be read. */
  async after(revision: number, max = MAX_REPLAY): Promise<PolicyChange[]> {
    const jsm = await this.nc.jetstreamManager({ timeout: API_TIMEOUT_MS });
    const { state } = await jsm.streams.info(this.stream);
    if (state.messages === 0) return [];
    let low = state.first_seq;
    let high = state.last_seq;
    if ((await this.revisionAt(jsm, high)) <= revision) return [];
    // The first sequence whose revision is beyond `revision` lies in [low, high].
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if ((await this.revisionAt(jsm, middle)) <= revision) low = middle + 1;
      else high = middle;
    }
    const changes: PolicyChange[] = [];
    for (let seq = low; seq <= state.last_seq && changes.length < max; seq++) {
      const change = await this.changeAt(jsm, seq);
      if (typeof change !== 'string') changes.push(change);
    }
    return changes;
  }

  private async changeAt(jsm: JetStreamManager, seq: number): Promise<PolicyChange | string> {
    return parseChange((await jsm.streams.getMessage(this.stream, { seq })).data);
  }

  /** The revision of the message at `seq`; an unreadable message counts as before every revision. */
  private async revisionAt(jsm: JetStreamManager, seq: number): Promise<number> {
    const change = await this.changeAt(jsm, seq);
    return typeof change === 'string' ? -1 : change.revision;
  }
}
