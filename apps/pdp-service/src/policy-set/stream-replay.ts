import { DeliverPolicy, type JetStreamManager, type NatsConnection } from 'nats';
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
 * (a reconnect, a slow consumer). The stream remembers: a replica that missed changes reads them with an ordered
 * consumer (ephemeral, no acks, in stream order) from the first one after its active revision before it asks pap for
 * a snapshot, so it catches up even while pap is down. Whatever the stream cannot give (it does not exist, JetStream
 * is off, the changes aged out) the snapshot still gives.
 *
 * Where to start: one publisher stores revisions in order, gap-free, each once or (a repeat outside the duplicate
 * window) again, so `sequence − revision` never decreases along the stream. The first stored message fixes its
 * smallest value: revision r + 1 lies at or after `first_seq + (r + 1 − first revision)`, exactly there unless a
 * repeat was stored before it, which the reader then skips. Three requests and one batch, however far behind.
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
    const start = await this.startFor(jsm, revision, state.first_seq);
    if (start > state.last_seq) return [];
    const consumer = await this.nc
      .jetstream({ timeout: API_TIMEOUT_MS })
      .consumers.get(this.stream, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: start });
    const changes: PolicyChange[] = [];
    try {
      const messages = await consumer.fetch({ max_messages: Math.min(state.last_seq - start + 1, max), expires: API_TIMEOUT_MS });
      for await (const message of messages) {
        const change = parseChange(message.data);
        // An unreadable message is skipped: its revision shows up as a gap, which the snapshot fills.
        if (typeof change !== 'string' && change.revision > revision) changes.push(change);
        if (message.seq >= state.last_seq || changes.length >= max) {
          messages.stop();
          break;
        }
      }
    } finally {
      await consumer.delete().catch(() => undefined);
    }
    return changes;
  }

  /** The first sequence that can hold revision `revision + 1` (see the class comment). */
  private async startFor(jsm: JetStreamManager, revision: number, firstSeq: number): Promise<number> {
    const first = parseChange((await jsm.streams.getMessage(this.stream, { seq: firstSeq })).data);
    if (typeof first === 'string') return firstSeq;
    return Math.max(firstSeq, firstSeq + revision + 1 - first.revision);
  }
}
