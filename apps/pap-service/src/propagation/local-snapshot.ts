import type { Pool } from 'pg';
import type { LocalPolicyChannel } from '@custos/contracts';
import type { Logger } from '@custos/service-kit';
import { answerSnapshotRequest } from './snapshot-answer';
import { SnapshotCache } from './snapshot-cache';

/** Parts no larger than over a default NATS server: the pdp reads the snapshot part by part, as over NATS. */
const IN_PROCESS_PAYLOAD = 1024 * 1024;

/**
 * Answers snapshot requests on the in-process channel (embedded mode) with the messages the NATS responder sends.
 * Returns the function that stops answering.
 */
export function answerLocalSnapshots(channel: LocalPolicyChannel, pool: Pool, logger: Logger): () => void {
  const cache = new SnapshotCache();
  return channel.answerSnapshots((request) => answerSnapshotRequest({ ...request, requester: 'in-process' }, { pool, logger, maxPayload: IN_PROCESS_PAYLOAD, cache }));
}
