import { PAYLOAD_HEADROOM_BYTES } from './change-codec';
import type { OutgoingSnapshot, PolicySnapshot, SnapshotUnchanged } from './nats';
import { SnapshotError } from './snapshot-error';
import { MAX_SNAPSHOT_BYTES, SnapshotParts, encodeSnapshotParts, isSnapshotPart, type SnapshotDocumentSink } from './snapshot-parts';
import { isRecord, isRevision, utf8Decoder, utf8Encoder } from './wire';

export { SnapshotError };

/**
 * The messages that answer a snapshot request with `snapshot`, each within `maxPayload` bytes (headers and framing
 * left room): parts, a part too large for one message in pieces. Every requester reads them; there is no other format.
 */
export function encodeSnapshotAnswer(snapshot: OutgoingSnapshot, maxPayload: number): Uint8Array[] {
  return encodeSnapshotParts(snapshot, maxPayload - PAYLOAD_HEADROOM_BYTES);
}

/** The `format` of a SnapshotUnchanged answer. */
export const SNAPSHOT_UNCHANGED_FORMAT = 3;

/** What one snapshot answer says: the set at a revision, or (to a request that gave `known`) that it did not move. */
export type SnapshotAnswer = PolicySnapshot | SnapshotUnchanged;

export const isSnapshotUnchanged = (answer: SnapshotAnswer): answer is SnapshotUnchanged =>
  (answer as Partial<SnapshotUnchanged>).format === SNAPSHOT_UNCHANGED_FORMAT;

/** The one message that answers a request whose `known` revision is still the deployed one. */
export function encodeSnapshotUnchanged(revision: number): Uint8Array {
  const message: SnapshotUnchanged = { format: SNAPSHOT_UNCHANGED_FORMAT, revision };
  return utf8Encoder.encode(JSON.stringify(message));
}

/** Whether a parsed snapshot message is a SnapshotUnchanged (format 3); one with another shape is not. */
const isUnchangedMessage = (message: unknown): message is SnapshotUnchanged =>
  isRecord(message) && message.format === SNAPSHOT_UNCHANGED_FORMAT && isRevision(message.revision);

/**
 * Collects the messages of one snapshot answer, whichever transport carried them: one SnapshotUnchanged, or
 * SnapshotParts (and SnapshotPieces). They must arrive in order; anything else fails the attempt, since NATS keeps one
 * publisher's order and a hole means a message was lost.
 */
export class SnapshotAssembler {
  private readonly parts: SnapshotParts;
  private started = false;
  /** Set by a first message that is a SnapshotUnchanged: the answer is that, and nothing may follow. */
  private unchanged: SnapshotUnchanged | undefined;

  /** `sink`, when given, takes the documents of each part as it arrives (they are then not in `result()`). */
  constructor(maxBytes = MAX_SNAPSHOT_BYTES, sink?: SnapshotDocumentSink) {
    this.parts = new SnapshotParts(sink, maxBytes);
  }

  /** Adds one message as it travels (its UTF-8 JSON); true once the last one is in. */
  addMessage(data: Uint8Array): boolean {
    let message: unknown;
    try {
      message = JSON.parse(utf8Decoder.decode(data));
    } catch {
      throw new SnapshotError('a snapshot message is not JSON');
    }
    return this.add(message);
  }

  /** Adds one message (its parsed JSON); true once the last one is in. */
  add(message: unknown): boolean {
    if (this.unchanged !== undefined) throw new SnapshotError('a snapshot message arrived after an unchanged answer');
    if (!this.started && isUnchangedMessage(message)) {
      this.unchanged = { format: SNAPSHOT_UNCHANGED_FORMAT, revision: message.revision };
      return true;
    }
    this.started = true;
    if (!isSnapshotPart(message)) throw new SnapshotError('a snapshot message must be a part or a piece of one (`format` 2)');
    return this.parts.add(message);
  }

  /** What the answer says: the snapshot, or that the requester's revision is current; only after `add` returned true. */
  answer(): SnapshotAnswer {
    return this.unchanged ?? this.result();
  }

  /** The snapshot the parts spell; only after `add` returned true, and never for an unchanged answer. */
  result(): PolicySnapshot {
    if (this.unchanged !== undefined) throw new SnapshotError('the answer says the set is unchanged; it holds no snapshot');
    return this.parts.result();
  }
}

/** The snapshot a complete answer spells: the inverse of `encodeSnapshotAnswer` for callers that hold every message (tests, tools). */
export function decodeSnapshot(messages: readonly Uint8Array[]): PolicySnapshot {
  const assembler = new SnapshotAssembler();
  for (const message of messages) if (assembler.addMessage(message)) return assembler.result();
  throw new SnapshotError('the snapshot is incomplete');
}
