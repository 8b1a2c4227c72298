import { decodeBase64, encodeBase64 } from './base64';
import type { Component } from './component';
import { propagatedComponent } from './component-schema';
import { PAYLOAD_HEADROOM_BYTES } from './change-codec';
import type { DeployedPolicy, OutgoingSnapshot, PolicySnapshot, SnapshotChunk, SnapshotRequest, SnapshotUnchanged } from './nats';
import { SnapshotError } from './snapshot-error';
import { SNAPSHOT_PARTS_FORMAT, SnapshotParts, encodeSnapshotParts, isSnapshotPart, snapshotJson, type SnapshotDocumentSink } from './snapshot-parts';
import { readSnapshotSettings } from './solution-settings';
import { isRecord, isRevision, utf8Decoder, utf8Encoder, wireDocument } from './wire';

export { SnapshotError };

/** Snapshots larger than this cannot be held as one string by V8 anyway. */
export const MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024;

/** Raw bytes per chunk so that a chunk, base64-encoded in its envelope, fits a server's `maxPayload`. */
export function snapshotChunkBytes(maxPayload: number): number {
  const room = maxPayload - PAYLOAD_HEADROOM_BYTES;
  return Math.max(3, Math.floor(room / 4) * 3);
}

/**
 * Cuts the UTF-8 JSON of a snapshot into chunks of at most `chunkBytes` raw bytes (a cut may fall
 * inside a character), each carried base64-encoded. There is always at least one chunk.
 */
export function encodeSnapshot(snapshot: OutgoingSnapshot, chunkBytes: number): SnapshotChunk[] {
  if (!Number.isInteger(chunkBytes) || chunkBytes < 1) throw new Error(`chunk size must be a positive integer, got ${chunkBytes}`);
  const bytes = utf8Encoder.encode(snapshotJson(snapshot));
  const chunks: SnapshotChunk[] = [];
  for (let offset = 0, index = 0; offset < bytes.length || index === 0; offset += chunkBytes, index++) {
    const end = Math.min(offset + chunkBytes, bytes.length);
    chunks.push({ index, last: end >= bytes.length, data: encodeBase64(bytes.subarray(offset, end)) });
  }
  return chunks;
}

/**
 * The messages that answer a snapshot request, each within `maxPayload` bytes: SnapshotParts when the requester
 * reads them (`formats` lists 2) and every document fits a part, else base64 chunks, which every requester reads.
 */
export function encodeSnapshotAnswer(snapshot: OutgoingSnapshot, request: Partial<SnapshotRequest> | undefined, maxPayload: number): Uint8Array[] {
  const parts = request?.formats?.includes(SNAPSHOT_PARTS_FORMAT) === true ? encodeSnapshotParts(snapshot, maxPayload - PAYLOAD_HEADROOM_BYTES) : undefined;
  return parts ?? encodeSnapshot(snapshot, snapshotChunkBytes(maxPayload)).map((chunk) => utf8Encoder.encode(JSON.stringify(chunk)));
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

/** Reads the JSON of a whole PolicySnapshot; a SnapshotError says what is wrong. */
export function parseSnapshot(text: string): PolicySnapshot {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SnapshotError(`the snapshot is not valid JSON: ${(error as Error).message}`);
  }
  if (!isRecord(value) || !isRevision(value.revision) || !Array.isArray(value.policies)) {
    throw new SnapshotError('the snapshot must be an object with `revision` and `policies`');
  }
  const policies: DeployedPolicy[] = [];
  for (const [index, item] of value.policies.entries()) {
    const policy = wireDocument(item);
    if (!policy) throw new SnapshotError(`snapshot policy ${index} must hold \`id\` and \`xml\` (and a \`tree\` only as an object, a \`deployedAt\` only as a revision)`);
    policies.push(policy);
  }
  const snapshot: PolicySnapshot = { revision: value.revision, policies };
  if (value.settings !== undefined) snapshot.settings = readSnapshotSettings(value.settings);
  if (value.components === undefined) return snapshot;
  if (!Array.isArray(value.components)) throw new SnapshotError('snapshot `components` must be an array');
  const components: Component[] = [];
  for (const [index, item] of value.components.entries()) {
    const registered = propagatedComponent(item);
    if (!registered) throw new SnapshotError(`snapshot component ${index} must be a pip or pxp component`);
    components.push(registered);
  }
  return { ...snapshot, components };
}

/**
 * Collects the messages of one snapshot answer: SnapshotChunks, or SnapshotParts (format 2) when the first message is
 * one. They must arrive in order (index 0, 1, ...); anything else fails the attempt, since NATS keeps one
 * publisher's order and a hole means a message was lost.
 */
export class SnapshotAssembler {
  /** Set by a first message that is a SnapshotPart: the answer is in parts. */
  private partsOf: SnapshotParts | undefined;
  /**
   * The text so far, decoded chunk by chunk (a streaming decoder holds a character cut between chunks), so the bytes
   * of a large snapshot are never held twice (all chunks, then joined) beside its text.
   */
  private readonly parts: string[] = [];
  private readonly decoder = new TextDecoder();
  private size = 0;
  private done = false;
  /** Set by a first message that is a SnapshotUnchanged: the answer is that, and nothing may follow. */
  private unchanged: SnapshotUnchanged | undefined;

  /**
   * `sink`, when given, takes the documents of each SnapshotPart as it arrives (they are then not in `result()`);
   * chunks are read whole, so a snapshot in chunks keeps its documents in `result()` whatever `sink` is.
   */
  constructor(
    private readonly maxBytes = MAX_SNAPSHOT_BYTES,
    private readonly sink?: SnapshotDocumentSink,
  ) {}

  /** Adds one message as it travels (its UTF-8 JSON); true once the last one is in. */
  addMessage(data: Uint8Array): boolean {
    let message: unknown;
    try {
      message = JSON.parse(utf8Decoder.decode(data));
    } catch {
      throw new SnapshotError('a snapshot chunk is not JSON');
    }
    return this.add(message);
  }

  /** Adds one chunk message (its parsed JSON); true once the last chunk is in. */
  add(message: unknown): boolean {
    if (this.unchanged !== undefined) throw new SnapshotError('a snapshot message arrived after an unchanged answer');
    if (this.partsOf === undefined && this.parts.length === 0 && !this.done && isUnchangedMessage(message)) {
      this.unchanged = { format: SNAPSHOT_UNCHANGED_FORMAT, revision: message.revision };
      return true;
    }
    if (this.partsOf !== undefined || (this.parts.length === 0 && !this.done && isSnapshotPart(message))) return this.addPart(message);
    if (this.done) throw new SnapshotError('a chunk arrived after the last one');
    if (!isRecord(message) || !Number.isSafeInteger(message.index) || typeof message.last !== 'boolean' || typeof message.data !== 'string') {
      throw new SnapshotError('a snapshot chunk must hold `index`, `last` and `data`');
    }
    const expected = this.parts.length;
    if (message.index !== expected) {
      throw new SnapshotError(`snapshot chunk ${String(message.index)} arrived where chunk ${expected} was expected`);
    }
    const bytes = decodeBase64(message.data);
    if (bytes === undefined) throw new SnapshotError(`snapshot chunk ${expected} is not base64`);
    this.size += bytes.length;
    if (this.size > this.maxBytes) throw new SnapshotError(`the snapshot exceeds ${this.maxBytes} bytes`);
    this.done = message.last;
    this.parts.push(this.decoder.decode(bytes, { stream: !this.done }));
    return this.done;
  }

  /** What the answer says: the snapshot, or that the requester's revision is current; only after `add` returned true. */
  answer(): SnapshotAnswer {
    return this.unchanged ?? this.result();
  }

  /** The snapshot the chunks spell; only after `add` returned true, and never for an unchanged answer. */
  result(): PolicySnapshot {
    if (this.unchanged !== undefined) throw new SnapshotError('the answer says the set is unchanged; it holds no snapshot');
    if (this.partsOf !== undefined) return this.partsOf.result();
    if (!this.done) throw new SnapshotError('the snapshot is incomplete');
    return parseSnapshot(this.parts.join(''));
  }

  private addPart(message: unknown): boolean {
    this.partsOf ??= new SnapshotParts(this.sink);
    const parts = this.partsOf;
    if (!isSnapshotPart(message)) throw new SnapshotError('a snapshot chunk arrived among snapshot parts');
    return parts.add(message);
  }
}

/**
 * The snapshot a complete list of chunks spells, in index order whatever order they are listed in: the inverse of
 * `encodeSnapshot` for callers that already hold every chunk (tests, tools).
 */
export function decodeSnapshot(chunks: readonly SnapshotChunk[]): PolicySnapshot {
  const assembler = new SnapshotAssembler();
  for (const chunk of [...chunks].sort((a, b) => a.index - b.index)) assembler.add(chunk);
  return assembler.result();
}

