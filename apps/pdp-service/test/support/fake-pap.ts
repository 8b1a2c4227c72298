import { connect, type NatsConnection } from 'nats';
import { encodeChange, encodeSnapshotParts, policySubjects, type Component, type DeployedPolicy, type PolicyChange, type PolicySnapshot, type SnapshotRequest } from '@custos/contracts';
import { TEST_NATS_URL } from '@custos/test-kit';

/** How the next snapshot request is answered when it is not answered properly. */
export type Misbehaviour = 'silent' | 'out-of-order' | 'missing-message';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Plays pap's side of the propagation contract on real NATS: answers snapshot requests in messages of at most
 * `partBytes` (by default so small that every document travels in pieces) and publishes PolicyChange messages on the
 * changes subject.
 */
export class FakePap {
  revision = 0;
  /** Deployed policies and timers (`urn:timer:` ids), by id. */
  readonly policies = new Map<string, string>();
  /** The revision each deployed policy's current deployment began at, as pap ships it (`deployedAt`). */
  readonly deployedAt = new Map<string, number>();
  /** Registered PIP and PXP components, by id. */
  readonly components = new Map<string, Component>();
  readonly requests: SnapshotRequest[] = [];
  /** Messages sent per snapshot answer, most recent last. */
  readonly messageCounts: number[] = [];
  readonly misbehave: Misbehaviour[] = [];
  private nc: NatsConnection | undefined;

  private constructor(
    readonly prefix: string,
    private readonly partBytes: number,
  ) {}

  static async start(
    prefix: string,
    { partBytes = 200, servers = TEST_NATS_URL }: { partBytes?: number; servers?: string } = {},
  ): Promise<FakePap> {
    const pap = new FakePap(prefix, partBytes);
    const nc = await connect({ servers, name: 'fake pap', maxReconnectAttempts: -1, reconnectTimeWait: 50 });
    pap.nc = nc;
    nc.subscribe(policySubjects(prefix).snapshot, {
      callback: (_error, message) => {
        const request = JSON.parse(decoder.decode(message.data)) as SnapshotRequest;
        pap.requests.push(request);
        if (message.reply) pap.answer(message.reply);
      },
    });
    await nc.flush();
    return pap;
  }

  snapshot(): PolicySnapshot {
    const snapshot: PolicySnapshot = { revision: this.revision, policies: [...this.policies.keys()].map((id) => this.document(id)) };
    if (this.components.size > 0) snapshot.components = [...this.components.values()];
    return snapshot;
  }

  private answer(reply: string): void {
    const mode = this.misbehave.shift();
    if (mode === 'silent') return;
    const messages = encodeSnapshotParts(this.snapshot(), this.partBytes);
    if (mode === 'out-of-order') [messages[0], messages[1]] = [messages[1]!, messages[0]!];
    // The last message lost: the answer never completes, so the pdp times out after reading the others.
    if (mode === 'missing-message') messages.pop();
    this.messageCounts.push(messages.length);
    for (const message of messages) this.nc!.publish(reply, message);
  }

  /**
   * Deploys (or replaces) a policy at the next revision and announces it; returns the revision. As pap: a policy
   * not deployed before begins a deployment at this revision, a replaced one keeps its `deployedAt`.
   */
  deploy(id: string, xml: string, { announce = true }: { announce?: boolean } = {}): number {
    this.store(id, xml);
    if (announce) this.publish({ revision: this.revision, type: 'deploy', policy: this.document(id) });
    return this.revision;
  }

  revoke(id: string, { announce = true }: { announce?: boolean } = {}): number {
    this.revision++;
    this.policies.delete(id);
    this.deployedAt.delete(id);
    if (announce) this.publish({ revision: this.revision, type: 'revoke', policyId: id });
    return this.revision;
  }

  /** Registers (or replaces) a PIP/PXP component at the next revision, as pap does. */
  register(component: Component, { announce = true }: { announce?: boolean } = {}): number {
    this.revision++;
    this.components.set(component.id.identifier, component);
    if (announce) this.publish({ revision: this.revision, type: 'component', component });
    return this.revision;
  }

  unregister(componentId: string): number {
    this.revision++;
    this.components.delete(componentId);
    this.publish({ revision: this.revision, type: 'unregister', componentId });
    return this.revision;
  }

  /** Announces the next revision as `resync` (what pap does for a policy too large for a message). */
  deployWithResync(id: string, xml: string): number {
    this.store(id, xml);
    this.publish({ revision: this.revision, type: 'resync' });
    return this.revision;
  }

  /** A deployed document as it travels: policies with their `deployedAt`, timers without. */
  private document(id: string): DeployedPolicy {
    const xml = this.policies.get(id) ?? '';
    const deployedAt = this.deployedAt.get(id);
    return deployedAt === undefined ? { id, xml } : { id, xml, deployedAt };
  }

  private store(id: string, xml: string): void {
    this.revision++;
    if (!this.policies.has(id) && !id.startsWith('urn:timer:')) this.deployedAt.set(id, this.revision);
    this.policies.set(id, xml);
  }

  publish(change: PolicyChange | string): void {
    const data = typeof change === 'string' ? encoder.encode(change) : encodeChange(change, Number.POSITIVE_INFINITY).data;
    this.nc!.publish(policySubjects(this.prefix).changes, data);
  }

  async flush(): Promise<void> {
    await this.nc!.flush();
  }

  async stop(): Promise<void> {
    await this.nc?.drain();
  }
}
