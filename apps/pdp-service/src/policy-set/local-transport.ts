import {
  SnapshotAssembler,
  SnapshotError,
  parseChange,
  type LocalPolicyChannel,
  type PolicyChange,
  type SnapshotAnswer,
  type SnapshotDocumentSink,
} from '@custos/contracts';
import type { Logger } from '@custos/service-kit';
import { snapshotRequest, type PolicyTransport } from './transport';

/** How this replica names itself in pap's log. */
const IN_PROCESS = 'in-process';

export interface LocalTransportOptions {
  logger: Logger;
  /** A snapshot attempt fails when pap has not answered within this long. */
  snapshotTimeoutMs?: number;
}

/**
 * The follower's transport when pap runs in the same process (embedded mode): changes and snapshots come over a
 * LocalPolicyChannel instead of NATS, read with the same codecs. The channel loses nothing and never reconnects,
 * so there is no replay and no reconnect to report; gaps and periodic checks still fetch snapshots as with NATS.
 */
export class LocalPolicyTransport implements PolicyTransport {
  private unsubscribe: (() => void) | undefined;
  private closed = false;
  private readonly snapshotTimeoutMs: number;

  constructor(
    private readonly channel: LocalPolicyChannel,
    private readonly options: LocalTransportOptions,
  ) {
    this.snapshotTimeoutMs = options.snapshotTimeoutMs ?? 5000;
  }

  get connected(): boolean {
    return !this.closed;
  }

  subscribeChanges(onChange: (change: PolicyChange, receivedAt: number) => void): Promise<void> {
    this.unsubscribe = this.channel.subscribeChanges((data) => {
      const receivedAt = Date.now();
      const change = parseChange(data);
      if (typeof change === 'string') {
        // As over NATS: the revision it carried shows up as a gap and triggers a snapshot.
        this.options.logger.warn({ reason: change }, 'unreadable policy change ignored');
        return;
      }
      onChange(change, receivedAt);
    });
    return Promise.resolve();
  }

  async fetchSnapshot(sink?: SnapshotDocumentSink, known?: number, ids?: string[]): Promise<SnapshotAnswer> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new SnapshotError(`no snapshot arrived within ${this.snapshotTimeoutMs} ms`)), this.snapshotTimeoutMs);
    });
    let messages: Uint8Array[];
    try {
      messages = await Promise.race([this.channel.requestSnapshot(snapshotRequest(IN_PROCESS, known, ids)), late]);
    } catch (error) {
      throw error instanceof SnapshotError ? error : new SnapshotError(`snapshot request failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      clearTimeout(timer);
    }
    // Read as over NATS: message by message, documents to `sink` as each part is read.
    const assembler = new SnapshotAssembler(undefined, sink);
    for (const message of messages) if (assembler.addMessage(message)) return assembler.answer();
    throw new SnapshotError('the snapshot answer ended before its last part');
  }

  onReconnect(): void {
    // An in-process channel does not disconnect.
  }

  close(): Promise<void> {
    this.closed = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    return Promise.resolve();
  }
}
