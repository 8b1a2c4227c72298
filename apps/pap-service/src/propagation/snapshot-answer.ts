import type { Pool } from 'pg';
import { encodeSnapshotAnswer, encodeSnapshotUnchanged, type SnapshotRequest } from '@custos/contracts';
import type { Logger } from '@custos/service-kit';
import type { OutgoingSnapshot } from '@custos/contracts';
import { readRevision, readStoredSnapshot } from './snapshot';
import { readForward } from './snapshot-forward';
import type { EncodedSnapshot, SnapshotCache } from './snapshot-cache';

export interface SnapshotAnswerOptions {
  pool: Pool;
  logger: Logger;
  /** Largest message the transport carries. */
  maxPayload: number;
  /** Keeps the whole set's answer per revision (one per transport); without it every request reads the set. */
  cache?: SnapshotCache;
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
  const whole = request?.ids === undefined;
  if (request?.known !== undefined || (whole && options.cache !== undefined)) {
    // A replica's periodic check: one row read, one small message, when nothing changed (which is nearly always).
    const revision = await readRevision(options.pool);
    if (revision === request?.known) {
      options.logger.debug({ requester, revision, ms: Date.now() - started }, 'snapshot unchanged');
      return [encodeSnapshotUnchanged(revision)];
    }
    if (whole && options.cache !== undefined) {
      const kept = options.cache.at(revision, options.maxPayload);
      const { cache } = options;
      const answer = kept ?? (await cache.read(revision, options.maxPayload, () => readEncoded(options, undefined, cache.newest())));
      logSent(options, requester, answer, started, kept !== undefined);
      return answer.messages;
    }
  }
  const answer = await readEncoded(options, request?.ids);
  logSent(options, requester, answer, started, false);
  return answer.messages;
}

/**
 * The set (or the documents `ids` names) read in one snapshot and cut into messages: the whole set made from `kept`
 * and the changes since when that can be told, else read row by row.
 */
async function readEncoded(options: SnapshotAnswerOptions, ids?: readonly string[], kept?: OutgoingSnapshot): Promise<EncodedSnapshot> {
  const forward = kept === undefined ? undefined : await readForward(options.pool, kept);
  const snapshot = forward ?? (await readStoredSnapshot(options.pool, undefined, ids));
  return { snapshot, messages: encodeSnapshotAnswer(snapshot, options.maxPayload), read: forward === undefined ? 'rows' : 'changes' };
}

function logSent(options: SnapshotAnswerOptions, requester: string | undefined, answer: EncodedSnapshot, started: number, kept: boolean): void {
  const { snapshot, messages, read } = answer;
  options.logger.info(
    { requester, revision: snapshot.revision, policies: snapshot.policies.length, messages: messages.length, kept, read, ms: Date.now() - started },
    'snapshot sent',
  );
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
