import { propagatedComponent } from './component-schema';
import type { DeployedPolicy, PolicyChange } from './nats';
import { wireSolutionSettings } from './solution-settings';
import { isRecord, isRevision, utf8Decoder, utf8Encoder, wireDocument } from './wire';

/** Bytes kept free below the server's max payload for headers and framing, by every sender of the protocol. */
export const PAYLOAD_HEADROOM_BYTES = 4096;

/** Reads a PolicyChange message (its text or its bytes); a string says why it is not one. */
export function parseChange(message: string | Uint8Array): PolicyChange | string {
  let value: unknown;
  try {
    value = JSON.parse(typeof message === 'string' ? message : utf8Decoder.decode(message));
  } catch {
    return 'the change message is not JSON';
  }
  if (!isRecord(value)) return 'the change message is not an object';
  const { revision, type } = value;
  if (!isRevision(revision) || revision < 1) return 'the change message has no valid `revision`';
  switch (type) {
    case 'deploy': {
      const policy = wireDocument(value.policy);
      return policy ? { revision, type, policy } : `change ${revision}: \`policy\` must hold \`id\` and \`xml\` (and a \`tree\` only as an object, a \`deployedAt\` only as a revision)`;
    }
    case 'revoke':
      return typeof value.policyId === 'string'
        ? { revision, type, policyId: value.policyId }
        : `change ${revision}: \`policyId\` must be a string`;
    case 'component': {
      const registered = propagatedComponent(value.component);
      return registered ? { revision, type, component: registered } : `change ${revision}: \`component\` must be a pip or pxp component`;
    }
    case 'unregister':
      return typeof value.componentId === 'string'
        ? { revision, type, componentId: value.componentId }
        : `change ${revision}: \`componentId\` must be a string`;
    case 'documents':
      return documentsChange(revision, value);
    case 'settings': {
      const settings = wireSolutionSettings(value.settings);
      return typeof value.solution === 'string' && value.solution !== '' && settings !== undefined
        ? { revision, type, solution: value.solution, settings }
        : `change ${revision}: \`solution\` must be a solution and \`settings\` an object of known settings`;
    }
    case 'resync':
      return { revision, type };
    default:
      return `change ${revision}: unknown type \`${String(type)}\``;
  }
}

/** A `documents` change: every deployed document readable and every revoked id a string, or none of it. */
function documentsChange(revision: number, value: Record<string, unknown>): PolicyChange | string {
  const invalid = `change ${revision}: \`deploy\` must be a list of documents and \`revoke\` a list of ids`;
  if (!Array.isArray(value.deploy) || !Array.isArray(value.revoke)) return invalid;
  const deploy = value.deploy.map(wireDocument);
  const revoke: unknown[] = value.revoke;
  if (deploy.some((document) => document === undefined) || revoke.some((id) => typeof id !== 'string')) return invalid;
  return { revision, type: 'documents', deploy: deploy as DeployedPolicy[], revoke: revoke as string[] };
}

/** What goes on the wire for one change: its UTF-8 JSON, or a `resync` of its revision when that exceeds `maxBytes`. */
export interface EncodedChange {
  data: Uint8Array;
  /** The change was too large and went out as `resync`; `bytes` is what it would have taken. */
  resync: boolean;
  bytes: number;
}

/**
 * A deploy whose tree makes it too large goes without the tree (receivers compile the XML); only when even that is
 * too large does it become a `resync`.
 */
export function encodeChange(change: PolicyChange, maxBytes: number): EncodedChange {
  const data = utf8Encoder.encode(JSON.stringify(change));
  if (data.length <= maxBytes) return { data, resync: false, bytes: data.length };
  if (change.type === 'deploy' && change.policy.tree !== undefined) {
    const bare = utf8Encoder.encode(JSON.stringify({ ...change, policy: withoutTree(change.policy) }));
    if (bare.length <= maxBytes) return { data: bare, resync: false, bytes: bare.length };
  }
  if (change.type === 'documents' && change.deploy.some((document) => document.tree !== undefined)) {
    const bare = utf8Encoder.encode(JSON.stringify({ ...change, deploy: change.deploy.map(withoutTree) }));
    if (bare.length <= maxBytes) return { data: bare, resync: false, bytes: bare.length };
  }
  const resync: PolicyChange = { revision: change.revision, type: 'resync' };
  return { data: utf8Encoder.encode(JSON.stringify(resync)), resync: true, bytes: data.length };
}

const withoutTree = (document: DeployedPolicy): DeployedPolicy => {
  const bare = { ...document };
  delete bare.tree;
  return bare;
};
