import { connect, type ConsumerMessages, type NatsConnection } from 'nats';
import { parseChange, type PolicyChange } from '@custos/contracts';
import { waitFor } from '@custos/test-kit';
import type { Logger } from '@custos/service-kit';
import { NatsLink } from '../src/propagation/nats-link';

export interface ReceivedChange {
  change: PolicyChange;
  msgId: string | undefined;
  subject: string;
  streamSequence: number;
}

/** A JetStream ordered consumer on a stream, collecting every change it is delivered (stop() fails on an unreadable one). */
export class ChangeCollector {
  private constructor(
    private readonly messages: ConsumerMessages,
    private readonly done: Promise<void>,
    readonly received: ReceivedChange[],
  ) {}

  static async start(nc: NatsConnection, stream: string): Promise<ChangeCollector> {
    const consumer = await nc.jetstream().consumers.get(stream);
    const messages = await consumer.consume();
    const received: ReceivedChange[] = [];
    const done = (async () => {
      for await (const msg of messages) {
        // Read as a pdp reads it: a change pap publishes must pass the receivers' codec.
        const change = parseChange(msg.data);
        if (typeof change === 'string') throw new Error(`stream message ${msg.seq} is not a change: ${change}`);
        received.push({
          change,
          msgId: msg.headers?.get('Nats-Msg-Id'),
          subject: msg.subject,
          streamSequence: msg.seq,
        });
        msg.ack();
      }
    })();
    return new ChangeCollector(messages, done, received);
  }

  async waitForCount(count: number, timeoutMs = 10_000): Promise<ReceivedChange[]> {
    await waitFor(() => this.received.length >= count, { timeoutMs, what: `${count} changes on the stream` });
    return this.received;
  }

  async stop(): Promise<void> {
    this.messages.stop();
    await this.done.catch(() => undefined);
  }
}

export async function connectLink(servers: string, logger: Logger): Promise<NatsLink> {
  const link = new NatsLink({ servers, name: 'pap-test', logger }).start();
  await waitFor(() => link.connection(), { what: 'the NATS link to connect' });
  return link;
}

export const connectTest = (servers: string): Promise<NatsConnection> => connect({ servers, name: 'pap-test-client' });
