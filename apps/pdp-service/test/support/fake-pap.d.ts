import { type Component, type PolicyChange, type PolicySnapshot, type SnapshotRequest } from '@custos/contracts';
/** How the next snapshot request is answered when it is not answered properly. */
export type Misbehaviour = 'silent' | 'out-of-order' | 'missing-chunk';
/**
 * Plays pap's side of the propagation contract on real NATS: answers snapshot requests with
 * chunked replies and publishes PolicyChange messages on the changes subject.
 */
export declare class FakePap {
    readonly prefix: string;
    private readonly chunkSize;
    revision: number;
    /** Deployed policies and timers (`urn:timer:` ids), by id. */
    readonly policies: Map<string, string>;
    /** Registered PIP and PXP components, by id. */
    readonly components: Map<string, Component>;
    readonly requests: SnapshotRequest[];
    /** Chunks sent per snapshot answer, most recent last. */
    readonly chunkCounts: number[];
    readonly misbehave: Misbehaviour[];
    private nc;
    private constructor();
    static start(prefix: string, { chunkSize, servers }?: {
        chunkSize?: number;
        servers?: string;
    }): Promise<FakePap>;
    snapshot(): PolicySnapshot;
    private answer;
    /** Deploys (or replaces) a policy at the next revision and announces it; returns the revision. */
    deploy(id: string, xml: string, { announce }?: {
        announce?: boolean;
    }): number;
    revoke(id: string, { announce }?: {
        announce?: boolean;
    }): number;
    /** Registers (or replaces) a PIP/PXP component at the next revision, as pap does. */
    register(component: Component, { announce }?: {
        announce?: boolean;
    }): number;
    unregister(componentId: string): number;
    /** Announces the next revision as `resync` (what pap does for a policy too large for a message). */
    deployWithResync(id: string, xml: string): number;
    publish(change: PolicyChange | string): void;
    flush(): Promise<void>;
    stop(): Promise<void>;
}
