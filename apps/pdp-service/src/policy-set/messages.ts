import type { Component, DeployedPolicy, PolicyChange, PolicySnapshot } from '@custos/contracts';

/** A snapshot could not be fetched or read; the follower retries with backoff. */
export class SnapshotError extends Error {}

/** Snapshots larger than this cannot be held as one string by V8 anyway. */
export const MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024;

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isRevision = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

function deployedPolicy(value: unknown): DeployedPolicy | undefined {
  if (!isRecord(value) || typeof value.id !== 'string' || typeof value.xml !== 'string') return undefined;
  return { id: value.id, xml: value.xml };
}

/**
 * A PIP/PXP component as pap propagates it (contracts/nats.ts). pap validated it completely; this checks the shape
 * the registry relies on, so a damaged message cannot break the index.
 */
function component(value: unknown): Component | undefined {
  if (!isRecord(value) || !isRecord(value.id) || !Array.isArray(value.urls) || !Array.isArray(value.componentInterfaces)) return undefined;
  const { componentType, identifier } = value.id;
  if ((componentType !== 'PIP' && componentType !== 'PXP') || typeof identifier !== 'string') return undefined;
  if (!value.urls.every((url) => typeof url === 'string')) return undefined;
  if (!value.componentInterfaces.every((item) => isRecord(item) && typeof item.methodName === 'string')) return undefined;
  return value as unknown as Component;
}

/** Reads a PolicyChange message; a string says why it is not one. */
export function parseChange(text: string): PolicyChange | string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'the change message is not JSON';
  }
  if (!isRecord(value)) return 'the change message is not an object';
  const { revision, type } = value;
  if (!isRevision(revision) || revision < 1) return 'the change message has no valid `revision`';
  switch (type) {
    case 'deploy': {
      const policy = deployedPolicy(value.policy);
      return policy ? { revision, type, policy } : `change ${revision}: \`policy\` must hold \`id\` and \`xml\``;
    }
    case 'revoke':
      return typeof value.policyId === 'string'
        ? { revision, type, policyId: value.policyId }
        : `change ${revision}: \`policyId\` must be a string`;
    case 'component': {
      const registered = component(value.component);
      return registered ? { revision, type, component: registered } : `change ${revision}: \`component\` must be a pip or pxp component`;
    }
    case 'unregister':
      return typeof value.componentId === 'string'
        ? { revision, type, componentId: value.componentId }
        : `change ${revision}: \`componentId\` must be a string`;
    case 'resync':
      return { revision, type };
    default:
      return `change ${revision}: unknown type \`${String(type)}\``;
  }
}

/** Reads the JSON of a whole PolicySnapshot. */
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
    const policy = deployedPolicy(item);
    if (!policy) throw new SnapshotError(`snapshot policy ${index} must hold \`id\` and \`xml\``);
    policies.push(policy);
  }
  if (value.components === undefined) return { revision: value.revision, policies };
  if (!Array.isArray(value.components)) throw new SnapshotError('snapshot `components` must be an array');
  const components: Component[] = [];
  for (const [index, item] of value.components.entries()) {
    const registered = component(item);
    if (!registered) throw new SnapshotError(`snapshot component ${index} must be a pip or pxp component`);
    components.push(registered);
  }
  return { revision: value.revision, policies, components };
}

/**
 * Collects the SnapshotChunk messages of one snapshot request. Chunks must arrive in order
 * (index 0, 1, ...); anything else fails the attempt, since NATS keeps one publisher's order and
 * a hole means a chunk was lost.
 */
export class SnapshotAssembler {
  private readonly parts: Buffer[] = [];
  private size = 0;
  private done = false;

  constructor(private readonly maxBytes = MAX_SNAPSHOT_BYTES) {}

  /** Adds one chunk message (its parsed JSON); true once the last chunk is in. */
  add(message: unknown): boolean {
    if (this.done) throw new SnapshotError('a chunk arrived after the last one');
    if (!isRecord(message) || !Number.isSafeInteger(message.index) || typeof message.last !== 'boolean' || typeof message.data !== 'string') {
      throw new SnapshotError('a snapshot chunk must hold `index`, `last` and `data`');
    }
    const expected = this.parts.length;
    if (message.index !== expected) {
      throw new SnapshotError(`snapshot chunk ${String(message.index)} arrived where chunk ${expected} was expected`);
    }
    const bytes = Buffer.from(message.data, 'base64');
    this.size += bytes.length;
    if (this.size > this.maxBytes) throw new SnapshotError(`the snapshot exceeds ${this.maxBytes} bytes`);
    this.parts.push(bytes);
    this.done = message.last;
    return this.done;
  }

  /** The snapshot the chunks spell; only after `add` returned true. */
  result(): PolicySnapshot {
    if (!this.done) throw new SnapshotError('the snapshot is incomplete');
    return parseSnapshot(Buffer.concat(this.parts, this.size).toString('utf8'));
  }
}
