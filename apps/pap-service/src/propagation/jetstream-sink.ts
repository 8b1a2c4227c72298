import type { NatsConnection } from 'nats';
import { encodeChange, PAYLOAD_HEADROOM_BYTES, policySubjects, type PolicyChange } from '@custos/contracts';
import type { Logger } from '@custos/service-kit';
import type { NatsLink } from './nats-link';
import type { OutboxSink } from './outbox-sink';
import { DEFAULT_STREAM_SETTINGS, ensurePolicyStream, type StreamSettings } from './stream';

export interface JetStreamSinkOptions {
  link: Pick<NatsLink, 'connection' | 'onConnected'>;
  prefix: string;
  logger: Logger;
  /** Largest message published as is; larger changes go out as `resync`. Default: max_payload − 4096. */
  maxMessageBytes?: number;
  ackTimeoutMs?: number;
  stream?: StreamSettings;
}

/**
 * pap's JetStream stream as the outbox's sink: each change published with msgID `<prefix>:<revision>` (the stream
 * drops repeats inside its duplicate window) and delivered once JetStream acknowledged it.
 *
 * Why a JetStream stream and not a core publish: its acknowledgement is the pump's delivery confirmation (stored by
 * the server, not merely written to a socket), and the pdps read it back: a replica that missed changes on its core
 * subscription reads them from the stream with an ordered consumer before it asks for a snapshot, so it catches up
 * even while pap is down (pdp-service policy-set/stream-replay.ts). The pdps still hear changes on a core subscription
 * of the same subject: no consumer stands between a commit and a decision.
 */
export class JetStreamSink implements OutboxSink {
  readonly shared = true;
  private readonly subjects;
  private streamReadyFor: NatsConnection | undefined;

  constructor(private readonly options: JetStreamSinkOptions) {
    this.subjects = policySubjects(options.prefix);
  }

  ready(): boolean {
    return this.options.link.connection() !== undefined;
  }

  onReady(listener: () => void): void {
    this.options.link.onConnected(() => listener());
  }

  async prepare(): Promise<void> {
    const nc = this.connection();
    if (this.streamReadyFor === nc) return;
    await ensurePolicyStream(nc, this.options.prefix, this.options.stream ?? DEFAULT_STREAM_SETTINGS);
    this.streamReadyFor = nc;
  }

  async deliver(revision: number, change: PolicyChange): Promise<void> {
    const nc = this.connection();
    const limit = this.options.maxMessageBytes ?? (nc.info?.max_payload ?? 1024 * 1024) - PAYLOAD_HEADROOM_BYTES;
    const { data, resync, bytes } = encodeChange(change, limit);
    if (resync) this.options.logger.warn({ revision, bytes, limit }, 'change too large for one message; sending resync');
    const js = nc.jetstream({ timeout: this.options.ackTimeoutMs ?? 5000 });
    await js.publish(this.subjects.changes, data, {
      msgID: `${this.options.prefix}:${revision}`,
      expect: { streamName: this.subjects.stream },
    });
  }

  reset(): void {
    this.streamReadyFor = undefined;
  }

  private connection(): NatsConnection {
    const nc = this.options.link.connection();
    if (nc === undefined) throw new Error('the nats connection was lost');
    return nc;
  }
}
