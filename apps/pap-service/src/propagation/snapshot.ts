import type { Pool } from 'pg';
import type { PolicySnapshot, SnapshotChunk } from '@custos/contracts';
import { listPropagatedComponents } from '../store/components';
import { toNumber, withTransaction } from '../store/db';

/**
 * Everything the pdps decide with at one revision, read in one REPEATABLE READ snapshot so all parts agree:
 * deployed policies and deployed timers (one list, by id; `urn:policy:` sorts before `urn:timer:`) and the PIP and
 * PXP components (contracts/nats.ts).
 */
export function readSnapshot(pool: Pool): Promise<PolicySnapshot> {
  return withTransaction(
    pool,
    async (client) => {
      const state = await client.query<{ revision: string }>('SELECT revision FROM pap.state');
      const policies = await client.query<{ id: string; xml: string }>(
        `SELECT id, xml FROM (
           SELECT id, xml FROM pap.policies WHERE deployed
           UNION ALL
           SELECT id, xml FROM pap.timers WHERE deployed
         ) deployed ORDER BY id COLLATE "C"`,
      );
      const components = await listPropagatedComponents(client);
      return {
        revision: toNumber(state.rows[0]!.revision),
        policies: policies.rows.map(({ id, xml }) => ({ id, xml })),
        components,
      };
    },
    { isolation: 'REPEATABLE READ', readOnly: true },
  );
}

/**
 * Cuts the UTF-8 JSON of a snapshot into chunks of at most `chunkBytes` raw bytes (a cut may fall
 * inside a character), each carried base64-encoded. There is always at least one chunk.
 */
export function toChunks(snapshot: PolicySnapshot, chunkBytes: number): SnapshotChunk[] {
  if (!Number.isInteger(chunkBytes) || chunkBytes < 1) throw new Error(`chunk size must be a positive integer, got ${chunkBytes}`);
  const bytes = Buffer.from(JSON.stringify(snapshot), 'utf8');
  const chunks: SnapshotChunk[] = [];
  for (let offset = 0, index = 0; offset < bytes.length || index === 0; offset += chunkBytes, index++) {
    const end = Math.min(offset + chunkBytes, bytes.length);
    chunks.push({ index, last: end >= bytes.length, data: bytes.subarray(offset, end).toString('base64') });
  }
  return chunks;
}

/** Joins chunks back into the snapshot (what a pdp does); for tests and tools. */
export function fromChunks(chunks: readonly SnapshotChunk[]): PolicySnapshot {
  const ordered = [...chunks].sort((a, b) => a.index - b.index);
  return JSON.parse(Buffer.concat(ordered.map((c) => Buffer.from(c.data, 'base64'))).toString('utf8')) as PolicySnapshot;
}
