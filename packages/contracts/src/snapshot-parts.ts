import type { Component } from './component';
import { propagatedComponent } from './component-schema';
import type { DeployedPolicy, OutgoingSnapshot, PolicySnapshot, StoredDocument } from './nats';
import { readSnapshotSettings, type SolutionSettingsEntry } from './solution-settings';
import { SnapshotError } from './snapshot-error';
import { decodeBase64, encodeBase64 } from './base64';
import { isRecord, isRevision, utf8Encoder, wireDocument } from './wire';

/** The `format` of every message of a snapshot answer but the unchanged one: SnapshotPart and SnapshotPiece. */
export const SNAPSHOT_PARTS_FORMAT = 2;

/** A part cut into pieces larger than this cannot be held as one string by V8 anyway. */
export const MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024;

/** A character beyond ASCII (U+0080 and up), the only ones whose UTF-8 takes more than one byte. */
const NOT_ASCII = /[\u0080-\uffff]/;

/** UTF-8 length of the JSON text of a value (JSON.stringify writes no lone surrogates: a pair counts 4 bytes). */
function utf8Length(text: string): number {
  // Nearly every document is ASCII: one native scan instead of a loop over its characters (issue 26).
  if (!NOT_ASCII.test(text)) return text.length;
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    bytes += code < 0x800 || (code >= 0xd800 && code <= 0xdfff) ? 1 : 2;
  }
  return bytes;
}

const isStored = (document: DeployedPolicy | StoredDocument): document is StoredDocument => 'treeJson' in document;

/**
 * The JSON text of one outgoing document as a DeployedPolicy. A stored tree is written as the text it is (the store
 * holds it as JSON, so it is JSON), never parsed here.
 */
function documentJson(document: DeployedPolicy | StoredDocument): string {
  if (!isStored(document)) return JSON.stringify(document);
  const { id, xml, treeJson, deployedAt } = document;
  const tree = treeJson === undefined ? '' : `,"tree":${treeJson}`;
  const at = deployedAt === undefined ? '' : `,"deployedAt":${deployedAt}`;
  return `{"id":${JSON.stringify(id)},"xml":${JSON.stringify(xml)}${tree}${at}}`;
}

/**
 * A snapshot as the messages of its answer, each at most `maxBytes`: SnapshotParts of as many whole documents as fit,
 * in snapshot order, part 0 with the components and settings. A document too large for a part of its own gets a part
 * of its own, and a part larger than `maxBytes` (that one, or a part 0 with very many components) travels cut into
 * SnapshotPieces: one format, whatever the sizes, and the same bytes over NATS and the in-process channel.
 */
export function encodeSnapshotParts(snapshot: OutgoingSnapshot, maxBytes: number): Uint8Array[] {
  const head = (index: number) => `{"format":${SNAPSHOT_PARTS_FORMAT},"index":${index},"revision":${snapshot.revision},`;
  // The largest head and tail any part can have: index and `last` take their widest form.
  const frame = utf8Length(head(snapshot.policies.length)) + utf8Length(',"policies":[],"last":false}');
  // Part 0 carries the components and the settings, each followed by its comma.
  const extras = [
    snapshot.components === undefined ? '' : `"components":${JSON.stringify(snapshot.components)},`,
    snapshot.settings === undefined ? '' : `"settings":${JSON.stringify(snapshot.settings)},`,
  ].join('');
  const parts: string[][] = [[]];
  let room = maxBytes - frame - utf8Length(extras);
  // Whether the part being filled holds anything yet: a document that does not fit starts a new part only then.
  let holds = extras !== '';
  for (const policy of snapshot.policies) {
    const text = documentJson(policy);
    const size = utf8Length(text) + 1; // its comma
    if (size > room && holds) {
      parts.push([]);
      room = maxBytes - frame;
    }
    parts[parts.length - 1]?.push(text);
    room -= size;
    holds = true;
  }
  return parts.flatMap((documents, index) => {
    const last = index === parts.length - 1;
    const start = index === 0 ? `${head(index)}${extras}` : head(index);
    const bytes = utf8Encoder.encode(`${start}"policies":[${documents.join(',')}],"last":${String(last)}}`);
    return bytes.length <= maxBytes ? [bytes] : piecesOf(bytes, index, maxBytes);
  });
}

/**
 * The UTF-8 JSON of part `index`, too large for one message, as SnapshotPieces of at most `maxBytes`: runs of its bytes
 * (a cut may fall inside a character), base64 in `data`, numbered from 0, `more` on all but the final one.
 */
function piecesOf(bytes: Uint8Array, index: number, maxBytes: number): Uint8Array[] {
  const envelope = (piece: number, more: boolean, data: string) =>
    `{"format":${SNAPSHOT_PARTS_FORMAT},"index":${index},"piece":${piece},"more":${String(more)},"data":"${data}"}`;
  // Base64 takes 4 characters per 3 bytes; the envelope is measured at its widest (a piece number can't exceed the bytes).
  const raw = Math.max(3, Math.floor((maxBytes - envelope(bytes.length, false, '').length) / 4) * 3);
  const pieces: Uint8Array[] = [];
  for (let offset = 0, piece = 0; offset < bytes.length; offset += raw, piece++) {
    const end = Math.min(offset + raw, bytes.length);
    pieces.push(utf8Encoder.encode(envelope(piece, end < bytes.length, encodeBase64(bytes.subarray(offset, end)))));
  }
  return pieces;
}

/** Takes the documents of each part as it is read, so a receiver can use them while the next parts travel. */
export type SnapshotDocumentSink = (policies: DeployedPolicy[]) => void;

/**
 * Collects the messages of a snapshot answer (each already parsed from its JSON), checking each as it arrives, so only
 * the documents are kept, never the text (but for a part cut into pieces, until its last piece is in). Parts must
 * arrive in order with one revision, a part's pieces in order and uninterrupted. With a `sink`, each part's documents
 * go to it instead and are not kept: the result then holds no policies, only the revision, components and settings.
 */
export class SnapshotParts {
  private readonly policies: DeployedPolicy[] = [];
  private components: Component[] | undefined;
  private settings: SolutionSettingsEntry[] | undefined;
  private revision: number | undefined;
  private next = 0;
  private done = false;
  /** The text so far of a part that comes in pieces, decoded piece by piece (a character may be cut between two). */
  private pieces: string[] = [];
  private pieceBytes = 0;
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly sink?: SnapshotDocumentSink,
    private readonly maxBytes = MAX_SNAPSHOT_BYTES,
  ) {}

  /** True once the last part is in. */
  add(message: Record<string, unknown>): boolean {
    if (this.done) throw new SnapshotError('a snapshot part arrived after the last one');
    if (message.piece !== undefined) {
      const whole = this.addPiece(message);
      return whole === undefined ? false : this.addPart(whole);
    }
    if (this.pieces.length > 0) throw new SnapshotError(`snapshot part ${this.next} stopped before its last piece`);
    return this.addPart(message);
  }

  /** True once the last part is in. */
  private addPart(message: Record<string, unknown>): boolean {
    const { index, last, revision, policies } = message;
    if (!Number.isSafeInteger(index) || typeof last !== 'boolean' || !isRevision(revision) || !Array.isArray(policies)) {
      throw new SnapshotError('a snapshot part must hold `index`, `last`, `revision` and `policies`');
    }
    if (index !== this.next) throw new SnapshotError(`snapshot part ${String(index)} arrived where part ${this.next} was expected`);
    if (this.revision !== undefined && revision !== this.revision) {
      throw new SnapshotError(`snapshot part ${this.next} is of revision ${revision}, the parts before of ${this.revision}`);
    }
    this.revision = revision;
    const read: DeployedPolicy[] = [];
    for (const [position, item] of policies.entries()) {
      const policy = wireDocument(item);
      if (!policy) {
        throw new SnapshotError(
          `snapshot part ${this.next}, policy ${position} must hold \`id\` and \`xml\` (and a \`tree\` only as an object, a \`deployedAt\` only as a revision)`,
        );
      }
      read.push(policy);
    }
    if (this.sink === undefined) for (const policy of read) this.policies.push(policy);
    else this.sink(read);
    if (message.components !== undefined) this.components = this.readComponents(message.components);
    if (message.settings !== undefined) {
      if (this.next !== 0) throw new SnapshotError(`snapshot part ${this.next} holds \`settings\`, which only part 0 may`);
      this.settings = readSnapshotSettings(message.settings);
    }
    this.next++;
    this.done = last;
    return last;
  }

  /** Adds one piece of the part expected next; the part, parsed, once its last piece is in. */
  private addPiece(message: Record<string, unknown>): Record<string, unknown> | undefined {
    const { index, piece, more, data } = message;
    if (!Number.isSafeInteger(index) || !Number.isSafeInteger(piece) || typeof more !== 'boolean' || typeof data !== 'string') {
      throw new SnapshotError('a snapshot piece must hold `index`, `piece`, `more` and `data`');
    }
    if (index !== this.next) throw new SnapshotError(`a piece of snapshot part ${String(index)} arrived where part ${this.next} was expected`);
    if (piece !== this.pieces.length) {
      throw new SnapshotError(`piece ${String(piece)} of snapshot part ${this.next} arrived where piece ${this.pieces.length} was expected`);
    }
    const bytes = decodeBase64(data);
    if (bytes === undefined) throw new SnapshotError(`piece ${this.pieces.length} of snapshot part ${this.next} is not base64`);
    this.pieceBytes += bytes.length;
    if (this.pieceBytes > this.maxBytes) throw new SnapshotError(`snapshot part ${this.next} exceeds ${this.maxBytes} bytes`);
    this.pieces.push(this.decoder.decode(bytes, { stream: more }));
    if (more) return undefined;
    const text = this.pieces.join('');
    this.pieces = [];
    this.pieceBytes = 0;
    let whole: unknown;
    try {
      whole = JSON.parse(text);
    } catch {
      throw new SnapshotError(`snapshot part ${this.next}, joined from its pieces, is not JSON`);
    }
    if (!isSnapshotPart(whole) || whole.piece !== undefined) throw new SnapshotError(`snapshot part ${this.next}, joined from its pieces, is not a part`);
    return whole;
  }

  /** The snapshot the parts spell; only after `add` returned true. */
  result(): PolicySnapshot {
    if (!this.done || this.revision === undefined) throw new SnapshotError('the snapshot is incomplete');
    const snapshot: PolicySnapshot = { revision: this.revision, policies: this.policies };
    if (this.components !== undefined) snapshot.components = this.components;
    if (this.settings !== undefined) snapshot.settings = this.settings;
    return snapshot;
  }

  private readComponents(value: unknown): Component[] {
    if (this.next !== 0) throw new SnapshotError(`snapshot part ${this.next} holds \`components\`, which only part 0 may`);
    if (!Array.isArray(value)) throw new SnapshotError('snapshot `components` must be an array');
    return value.map((item, position) => {
      const registered = propagatedComponent(item);
      if (!registered) throw new SnapshotError(`snapshot component ${position} must be a pip or pxp component`);
      return registered;
    });
  }
}

/** Whether a parsed snapshot message is a SnapshotPart or a SnapshotPiece (format 2). */
export const isSnapshotPart = (message: unknown): message is Record<string, unknown> =>
  isRecord(message) && message.format === SNAPSHOT_PARTS_FORMAT;
