import type { PolicyChange } from '@custos/contracts';

/**
 * Where the outbox pump delivers changes: pap's JetStream stream (JetStreamSink) or, in embedded mode, the in-process
 * channel (ChannelSink). The pump does the rest the same way for both: revision order, marking, pruning, backoff.
 */
export interface OutboxSink {
  /**
   * Several paps may pump into this sink (JetStream): each pass holds the publisher's advisory lock on a connection of
   * its own. False for a sink only one pap can reach (in process), whose statements then take the pool's connection
   * one at a time, since embedded PostgreSQL serves one session for every service.
   */
  readonly shared: boolean;
  /** Whether changes can go out now; while false they wait in the outbox (`offline`). */
  ready(): boolean;
  /** `listener` runs whenever the sink becomes ready again (a NATS reconnect), so the pump catches up at once. */
  onReady(listener: () => void): void;
  /** Called before the first delivery of each pass (the JetStream sink makes sure its stream exists). */
  prepare(): Promise<void>;
  /** Resolves once the sink holds the change (JetStream acknowledged it); a rejection stops the pass at this row. */
  deliver(revision: number, change: PolicyChange): Promise<void>;
  /** A pass failed: forget whatever `prepare` established. */
  reset(): void;
}
