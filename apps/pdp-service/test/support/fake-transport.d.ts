import type { PolicyChange, PolicySnapshot } from '@custos/contracts';
import type { PolicyTransport } from '../../src/policy-set/transport';
interface Deferred<T> {
    promise: Promise<T>;
    resolve(value: T): void;
    reject(error: Error): void;
}
export declare function deferred<T>(): Deferred<T>;
type Answer = PolicySnapshot | Error | Deferred<PolicySnapshot>;
/** A transport driven by the test: it emits changes and decides how each snapshot request is answered. */
export declare class FakeTransport implements PolicyTransport {
    /** What happened, in order (`subscribe`, `snapshot`). */
    readonly calls: string[];
    /** Answers for the next snapshot requests; when empty, `state` is answered. */
    readonly answers: Answer[];
    /** performance.now() of every snapshot request. */
    readonly requestTimes: number[];
    state: PolicySnapshot;
    connected: boolean;
    closed: boolean;
    private listener;
    private readonly reconnectListeners;
    get snapshotRequests(): number;
    subscribeChanges(onChange: (change: PolicyChange, receivedAt: number) => void): Promise<void>;
    fetchSnapshot(): Promise<PolicySnapshot>;
    onReconnect(listener: () => void): void;
    emit(change: PolicyChange, receivedAt?: number): void;
    reconnect(): void;
    close(): Promise<void>;
}
export {};
