import type { Pool } from 'pg';
import type { LocalPolicyChannel } from '@custos/contracts';
import type { Logger } from '@custos/service-kit';
import { readSnapshot } from './snapshot';

/**
 * Answers snapshot requests on the in-process channel (embedded mode) with the same snapshot the NATS responder
 * sends, as its JSON. Returns the function that stops answering.
 */
export function answerLocalSnapshots(channel: LocalPolicyChannel, pool: Pool, logger: Logger): () => void {
  return channel.answerSnapshots(async () => {
    const started = Date.now();
    const snapshot = await readSnapshot(pool);
    logger.info({ requester: 'in-process', revision: snapshot.revision, policies: snapshot.policies.length, ms: Date.now() - started }, 'snapshot sent');
    return JSON.stringify(snapshot);
  });
}
