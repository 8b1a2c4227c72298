import type { Pool } from 'pg';
import { encodeSnapshotAnswer, encodeSnapshotUnchanged, type SnapshotRequest } from '@custos/contracts';
import type { Logger } from '@custos/service-kit';
import { readRevision, readStoredSnapshot } from './snapshot';

export interface SnapshotAnswerOptions {
  pool: Pool;
  logger: Logger;
  /** Largest message the transport carries. */
  maxPayload: number;
}

/**
 * The one answer to a snapshot request, over NATS and over the in-process channel alike: the deployed set read in one
 * snapshot, as the messages `encodeSnapshotAnswer` makes (SnapshotParts, a part too large for a message in pieces),
 * each within `maxPayload`: the same answer to a replica's start, its periodic check, a gap the stream no longer
 * holds and an explanation's documents.
 */
export async function answerSnapshotRequest(request: Partial<SnapshotRequest> | undefined, options: SnapshotAnswerOptions): Promise<Uint8Array[]> {
  const started = Date.now();
  const requester = typeof request?.requester === 'string' ? request.requester.slice(0, 200) : undefined;
  if (request?.known !== undefined) {
    // A replica's periodic check: one row read, one small message, when nothing changed (which is nearly always).
    const revision = await readRevision(options.pool);
    if (revision === request.known) {
      options.logger.debug({ requester, revision, ms: Date.now() - started }, 'snapshot unchanged');
      return [encodeSnapshotUnchanged(revision)];
    }
  }
  const snapshot = await readStoredSnapshot(options.pool, undefined, request?.ids);
  const messages = encodeSnapshotAnswer(snapshot, options.maxPayload);
  options.logger.info(
    { requester, revision: snapshot.revision, policies: snapshot.policies.length, messages: messages.length, ms: Date.now() - started },
    'snapshot sent',
  );
  return messages;
}

/** Most documents one request may name (an explanation names the policies of one action). */
const MAX_IDS = 10_000;

/** The request a message body asks for, as far as it is readable: an unreadable body is answered like an old requester. */
export function snapshotRequestOf(body: unknown): Partial<SnapshotRequest> | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { requester, known, ids } = body as Record<string, unknown>;
  return {
    ...(typeof requester === 'string' ? { requester } : {}),
    // Anything but a revision is not a revision the requester holds: it gets the whole set.
    ...(typeof known === 'number' && Number.isSafeInteger(known) && known >= 0 ? { known } : {}),
    // Some documents only (an explanation's); a list that is not one of strings asks for the whole set.
    ...(Array.isArray(ids) && ids.every((id) => typeof id === 'string') ? { ids: (ids as string[]).slice(0, MAX_IDS) } : {}),
  };
}
