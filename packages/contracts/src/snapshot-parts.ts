import type { Component } from './component';
import { propagatedComponent } from './component-schema';
import type { DeployedPolicy, OutgoingSnapshot, PolicySnapshot, StoredDocument } from './nats';
import { readSnapshotSettings, type SolutionSettingsEntry } from './solution-settings';
import { SnapshotError } from './snapshot-error';
import { isRecord, isRevision, utf8Encoder, wireDocument } from './wire';

/** The `format` of a SnapshotPart, what a requester lists in `SnapshotRequest.formats` to get parts. */
export const SNAPSHOT_PARTS_FORMAT = 2;

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
 * The JSON text of one outgoing document as a DeployedPolicy; `withTree` false leaves its tree out. A stored tree is
 * written as the text it is (the store holds it as JSON, so it is JSON), never parsed here.
 */
function documentJson(document: DeployedPolicy | StoredDocument, withTree = true): string {
  if (!isStored(document)) {
    if (withTree || document.tree === undefined) return JSON.stringify(document);
    const bare: DeployedPolicy = { ...document };
    delete bare.tree;
    return JSON.stringify(bare);
  }
  const { id, xml, treeJson, deployedAt } = document;
  const tree = withTree && treeJson !== undefined ? `,"tree":${treeJson}` : '';
  const at = deployedAt === undefined ? '' : `,"deployedAt":${deployedAt}`;
  return `{"id":${JSON.stringify(id)},"xml":${JSON.stringify(xml)}${tree}${at}}`;
}

const hasTree = (document: DeployedPolicy | StoredDocument): boolean =>
  isStored(document) ? document.treeJson !== undefined : document.tree !== undefined;

/** The JSON text of a whole snapshot, built from its documents' texts (the base64 chunks carry it). */
export function snapshotJson(snapshot: OutgoingSnapshot): string {
  const components = snapshot.components === undefined ? '' : `,"components":${JSON.stringify(snapshot.components)}`;
  const settings = snapshot.settings === undefined ? '' : `,"settings":${JSON.stringify(snapshot.settings)}`;
  return `{"revision":${snapshot.revision},"policies":[${snapshot.policies.map((document) => documentJson(document)).join(',')}]${components}${settings}}`;
}

/**
 * A snapshot as SnapshotPart messages (their UTF-8 JSON) of at most `maxBytes` each, documents in snapshot order, as
 * many whole documents per part as fit. A document too large for a part of its own goes without its tree (the
 * receiver compiles its XML, as for a change); undefined when even that, or the components, do not fit: the sender
 * then answers in chunks.
 */
export function encodeSnapshotParts(snapshot: OutgoingSnapshot, maxBytes: number): Uint8Array[] | undefined {
  const head = (index: number) => `{"format":${SNAPSHOT_PARTS_FORMAT},"index":${index},"revision":${snapshot.revision},`;
  // The largest head and tail any part can have: index and `last` take their widest form.
  const frame = utf8Length(head(snapshot.policies.length)) + utf8Length(',"policies":[],"last":false}');
  // Part 0 carries the components and the settings, each followed by its comma.
  const extras = [
    snapshot.components === undefined ? '' : `"components":${JSON.stringify(snapshot.components)},`,
    snapshot.settings === undefined ? '' : `"settings":${JSON.stringify(snapshot.settings)},`,
  ].join('');
  const firstRoom = maxBytes - frame - utf8Length(extras);
  if (firstRoom < 0) return undefined;
  const parts: string[][] = [[]];
  let room = firstRoom;
  for (const policy of snapshot.policies) {
    let text = documentJson(policy);
    let size = utf8Length(text) + 1; // its comma
    if (size > maxBytes - frame && hasTree(policy)) {
      text = documentJson(policy, false);
      size = utf8Length(text) + 1;
    }
    if (size > room) {
      if (size > maxBytes - frame) return undefined;
      parts.push([]);
      room = maxBytes - frame;
    }
    parts[parts.length - 1]?.push(text);
    room -= size;
  }
  return parts.map((documents, index) => {
    const last = index === parts.length - 1;
    const start = index === 0 ? `${head(index)}${extras}` : head(index);
    return utf8Encoder.encode(`${start}"policies":[${documents.join(',')}],"last":${String(last)}}`);
  });
}

/** Takes the documents of each part as it is read, so a receiver can use them while the next parts travel. */
export type SnapshotDocumentSink = (policies: DeployedPolicy[]) => void;

/**
 * Collects SnapshotPart messages (each already parsed from its JSON), checking each as it arrives, so only the
 * documents are kept, never the text. Parts must arrive in order with one revision. With a `sink`, each part's
 * documents go to it instead and are not kept: the result then holds no policies, only the revision and components.
 */
export class SnapshotParts {
  private readonly policies: DeployedPolicy[] = [];
  private components: Component[] | undefined;
  private settings: SolutionSettingsEntry[] | undefined;
  private revision: number | undefined;
  private next = 0;
  private done = false;

  constructor(private readonly sink?: SnapshotDocumentSink) {}

  /** True once the last part is in. */
  add(message: Record<string, unknown>): boolean {
    if (this.done) throw new SnapshotError('a snapshot part arrived after the last one');
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

/** Whether a parsed snapshot message is a SnapshotPart (format 2) rather than a chunk. */
export const isSnapshotPart = (message: unknown): message is Record<string, unknown> =>
  isRecord(message) && message.format === SNAPSHOT_PARTS_FORMAT;
