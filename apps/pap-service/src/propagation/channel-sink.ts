import { encodeChange, type LocalPolicyChannel, type PolicyChange } from '@custos/contracts';
import type { OutboxSink } from './outbox-sink';

/** No NATS payload limit in process: a change always goes out whole. */
const NO_LIMIT = Number.MAX_SAFE_INTEGER;

/** Embedded mode's sink: the change's bytes handed to the in-process channel, which delivers before returning. */
export class ChannelSink implements OutboxSink {
  readonly shared = false;

  constructor(private readonly channel: LocalPolicyChannel) {}

  ready(): boolean {
    return true;
  }

  onReady(): void {
    // Always ready: nothing to wait for.
  }

  prepare(): Promise<void> {
    return Promise.resolve();
  }

  deliver(_revision: number, change: PolicyChange): Promise<void> {
    this.channel.publishChange(encodeChange(change, NO_LIMIT).data);
    return Promise.resolve();
  }

  reset(): void {
    // Nothing prepared.
  }
}
