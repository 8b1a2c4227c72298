import { Events, createInbox, type NatsConnection, type Subscription } from 'nats';
import {
  SnapshotAssembler,
  SnapshotError,
  parseChange,
  policySubjects,
  type PolicyChange,
  type PolicySubjects,
  type SnapshotAnswer,
  type SnapshotDocumentSink,
  type SnapshotRequest,
} from '@custos/contracts';
import type { Logger } from '@custos/service-kit';
import { StreamReplay } from './stream-replay';

/**
 * How the follower hears from pap. The NATS implementation is below; unit tests use a fake.
 */
export interface PolicyTransport {
  /**
   * Starts delivering change messages in arrival order (`receivedAt` = Date.now() on arrival).
   * Resolves once the server has the subscription, so a snapshot requested afterwards cannot miss a change.
   */
  subscribeChanges(onChange: (change: PolicyChange, receivedAt: number) => void): Promise<void>;
  /**
   * One attempt at a full snapshot; rejects (SnapshotError) on timeout or unreadable messages. A transport may hand
   * documents to `sink` as they arrive, before the snapshot is complete; those are then not in the snapshot it resolves
   * with. Whoever takes them must not use them until it resolves (a snapshot that fails midway never does).
   * With `known` (the active revision) pap may answer SnapshotUnchanged instead: the set is still that revision's.
   * With `ids`, pap sends only those documents (an older one sends them all).
   */
  fetchSnapshot(sink?: SnapshotDocumentSink, known?: number, ids?: string[]): Promise<SnapshotAnswer>;
  /** `listener` runs after every re-established connection (core messages may have been lost meanwhile). */
  onReconnect(listener: () => void): void;
  /**
   * Changes after `revision` that pap's JetStream stream still holds, oldest first (at most a bounded number);
   * rejects when the stream cannot be read. Absent: this transport cannot replay.
   */
  replayChanges?(revision: number): Promise<PolicyChange[]>;
  readonly connected: boolean;
  close(): Promise<void>;
}

export interface NatsTransportOptions {
  prefix: string;
  /** Names this replica in snapshot requests. */
  requester: string;
  logger: Logger;
  /** A snapshot attempt fails when no message of the answer arrived for this long. */
  chunkTimeoutMs?: number;
}

const encoder = new TextEncoder();

/**
 * What every pdp asks for: the set, with the revision it holds, if any, so that an unchanged set is answered in one
 * small message; or only some documents (an explanation's).
 */
export const snapshotRequest = (requester: string, known?: number, ids?: string[]): SnapshotRequest => ({
  requester,
  ...(known === undefined ? {} : { known }),
  ...(ids === undefined ? {} : { ids }),
});

/**
 * Core NATS: a subscription on the changes subject and snapshot requests answered in parts on an inbox; changes
 * missed on the subscription are read back from pap's JetStream stream (StreamReplay).
 */
export class NatsPolicyTransport implements PolicyTransport {
  readonly subjects: PolicySubjects;
  private readonly reconnectListeners: Array<() => void> = [];
  private changeSubscription: Subscription | undefined;
  private up = true;
  private readonly chunkTimeoutMs: number;
  private readonly replay: StreamReplay;

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: NatsTransportOptions,
  ) {
    this.subjects = policySubjects(options.prefix);
    this.chunkTimeoutMs = options.chunkTimeoutMs ?? 5000;
    this.replay = new StreamReplay(nc, options.prefix);
    void this.watchStatus();
  }

  get connected(): boolean {
    return this.up && !this.nc.isClosed();
  }

  private async watchStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === Events.Disconnect) {
        this.up = false;
        this.options.logger.warn({ server: status.data }, 'nats disconnected');
      } else if (status.type === Events.Reconnect) {
        this.up = true;
        this.options.logger.info({ server: status.data }, 'nats reconnected');
        for (const listener of this.reconnectListeners) listener();
      }
    }
  }

  onReconnect(listener: () => void): void {
    this.reconnectListeners.push(listener);
  }

  async subscribeChanges(onChange: (change: PolicyChange, receivedAt: number) => void): Promise<void> {
    this.changeSubscription = this.nc.subscribe(this.subjects.changes, {
      callback: (error, message) => {
        const receivedAt = Date.now();
        if (error) {
          this.options.logger.error({ err: error }, 'policy change subscription failed');
          return;
        }
        const change = parseChange(message.data);
        if (typeof change === 'string') {
          // Ignoring it is safe: the revision it carried shows up as a gap and triggers a snapshot.
          this.options.logger.warn({ reason: change }, 'unreadable policy change ignored');
          return;
        }
        onChange(change, receivedAt);
      },
    });
    await this.nc.flush();
  }

  replayChanges(revision: number): Promise<PolicyChange[]> {
    return this.replay.after(revision);
  }

  fetchSnapshot(sink?: SnapshotDocumentSink, known?: number, ids?: string[]): Promise<SnapshotAnswer> {
    return new Promise<SnapshotAnswer>((resolve, reject) => {
      // Parts go to `sink` as they are read (the follower compiles them while the next ones travel).
      const assembler = new SnapshotAssembler(undefined, sink);
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      let subscription: Subscription | undefined;
      const finish = (error: unknown, snapshot?: SnapshotAnswer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        subscription?.unsubscribe();
        if (snapshot) resolve(snapshot);
        else reject(error instanceof Error ? error : new SnapshotError(String(error)));
      };
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(
          () => finish(new SnapshotError(`no snapshot message arrived within ${this.chunkTimeoutMs} ms`)),
          this.chunkTimeoutMs,
        );
      };
      try {
        const inbox = createInbox();
        subscription = this.nc.subscribe(inbox, {
          callback: (error, message) => {
            if (error) return finish(error);
            if (message.headers?.hasError) {
              // The server says so at once when no one subscribes to the snapshot subject (503 no responders).
              const why = message.headers.code === 503 ? 'nobody answers snapshot requests' : `snapshot request failed: ${message.headers.description}`;
              return finish(new SnapshotError(why));
            }
            try {
              if (assembler.addMessage(message.data)) finish(undefined, assembler.answer());
              else arm();
            } catch (failure) {
              finish(failure);
            }
          },
        });
        arm();
        this.nc.publish(this.subjects.snapshot, encoder.encode(JSON.stringify(snapshotRequest(this.options.requester, known, ids))), { reply: inbox });
      } catch (error) {
        finish(error);
      }
    });
  }

  close(): Promise<void> {
    this.changeSubscription?.unsubscribe();
    this.changeSubscription = undefined;
    return Promise.resolve();
  }
}
