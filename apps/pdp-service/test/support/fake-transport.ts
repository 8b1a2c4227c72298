import type { PolicyChange, PolicySnapshot, SnapshotAnswer, SnapshotDocumentSink } from '@custos/contracts';
import type { PolicyTransport } from '../../src/policy-set/transport';

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: Error): void;
}

export function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

type Answer = PolicySnapshot | Error | Deferred<PolicySnapshot>;

/** A transport driven by the test: it emits changes and decides how each snapshot request is answered. */
export class FakeTransport implements PolicyTransport {
  /** What happened, in order (`subscribe`, `snapshot`). */
  readonly calls: string[] = [];
  /** Answers for the next snapshot requests; when empty, `state` is answered. */
  readonly answers: Answer[] = [];
  /** performance.now() of every snapshot request. */
  readonly requestTimes: number[] = [];
  /** The sink of every snapshot request (a test hands documents to it as parts would arrive). */
  readonly sinks: Array<SnapshotDocumentSink | undefined> = [];
  state: PolicySnapshot = { revision: 0, policies: [] };
  /** The `known` revision of every snapshot request. */
  readonly knowns: Array<number | undefined> = [];
  /** Answer as pap does to a request whose `known` is `state`'s revision (else: as a pap that ignores `known`). */
  answersUnchanged = false;
  connected = true;
  closed = false;
  private listener: ((change: PolicyChange, receivedAt: number) => void) | undefined;
  private readonly reconnectListeners: Array<() => void> = [];

  get snapshotRequests(): number {
    return this.calls.filter((c) => c === 'snapshot').length;
  }

  subscribeChanges(onChange: (change: PolicyChange, receivedAt: number) => void): Promise<void> {
    this.calls.push('subscribe');
    this.listener = onChange;
    return Promise.resolve();
  }

  fetchSnapshot(sink?: SnapshotDocumentSink, known?: number): Promise<SnapshotAnswer> {
    this.calls.push('snapshot');
    this.sinks.push(sink);
    this.knowns.push(known);
    this.requestTimes.push(performance.now());
    if (this.answersUnchanged && this.answers.length === 0 && known === this.state.revision) return Promise.resolve({ format: 3, revision: known });
    const answer = this.answers.shift() ?? structuredClone(this.state);
    if (answer instanceof Error) return Promise.reject(answer);
    if ('promise' in answer) return answer.promise;
    return Promise.resolve(answer);
  }

  onReconnect(listener: () => void): void {
    this.reconnectListeners.push(listener);
  }

  emit(change: PolicyChange, receivedAt = Date.now()): void {
    if (!this.listener) throw new Error('nobody subscribed');
    this.listener(change, receivedAt);
  }

  reconnect(): void {
    for (const listener of this.reconnectListeners) listener();
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

/** A FakeTransport whose changes can also be read back, as from pap's JetStream stream. */
export class ReplayingTransport extends FakeTransport {
  /** What the stream holds, in revision order; `failing` makes reading it fail. */
  readonly stream: PolicyChange[] = [];
  failing = false;
  /** The revisions replays were asked for. */
  readonly replays: number[] = [];

  replayChanges(revision: number): Promise<PolicyChange[]> {
    this.calls.push('replay');
    this.replays.push(revision);
    if (this.failing) return Promise.reject(new Error('stream not found'));
    return Promise.resolve(this.stream.filter((change) => change.revision > revision));
  }
}
