import type { SnapshotRequest } from './nats';
import { SnapshotError } from './snapshot-codec';

type ChangeListener = (data: Uint8Array) => void;
/** Answers one snapshot request with the messages NATS would carry to the request's inbox, in order. */
type SnapshotResponder = (request: SnapshotRequest) => Promise<Uint8Array[]>;

/**
 * The propagation subjects without NATS, for pap and pdp composed in one process (embedded mode). It carries what
 * NATS carries: a change as its encoded bytes (encodeChange) and a snapshot answer as its messages
 * (encodeSnapshotAnswer: parts, pieces of a part larger than a message), so both sides write and read through the
 * same codecs as over NATS and the pdp's follower cannot tell the difference.
 *
 * Delivery is in process and in publish order; nothing is lost, so receivers need no replay.
 */
export class LocalPolicyChannel {
  private readonly listeners = new Set<ChangeListener>();
  private responder: SnapshotResponder | undefined;

  /** Hands the change to every subscriber now; a subscriber that throws does not stop the others. */
  publishChange(data: Uint8Array): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(data);
      } catch {
        // A receiver's failure is its own (it logs it); the publisher has delivered.
      }
    }
  }

  /** Returns the function that ends the subscription. */
  subscribeChanges(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The one answerer of snapshot requests (pap); returns the function that withdraws it. */
  answerSnapshots(responder: SnapshotResponder): () => void {
    this.responder = responder;
    return () => {
      if (this.responder === responder) this.responder = undefined;
    };
  }

  /** The messages that answer `request`; rejects with a SnapshotError when nobody answers. */
  requestSnapshot(request: SnapshotRequest): Promise<Uint8Array[]> {
    const responder = this.responder;
    if (responder === undefined) return Promise.reject(new SnapshotError('nobody answers snapshot requests'));
    return responder(request);
  }
}
