import type { Pool } from 'pg';
import type { DeployedPolicy, OutgoingSnapshot, StoredDocument } from '@custos/contracts';
import { withTransaction } from '@custos/service-kit';
import { POLICY_TREE } from '../documents/policy-tree';
import type { DocumentTree } from '../store/documents';
import { readDocuments, readExtras, readRevision, writeBack, type ComputedTree } from './snapshot';

/** Further behind than this many revisions, reading the whole set again costs less than reading what changed. */
const MAX_FORWARD = 2000;

/** The changes whose documents the outbox row names; any other (a `resync`, one this pap does not know) needs the whole set. */
const FORWARD_TYPES = new Set(['deploy', 'revoke', 'documents', 'component', 'unregister', 'settings']);

type Document = DeployedPolicy | StoredDocument;

/**
 * The whole set now, made from `kept` (a whole set read earlier) and what changed since (issue 26, item 2): in one
 * REPEATABLE READ transaction, the revision, the outbox rows after `kept`'s revision (written in the transaction of
 * each change, so every revision up to the one read has its row, unless pruned), the rows of the documents they name,
 * and the components and settings. Every change of the set takes a revision with its outbox row, so a document no row
 * names is as `kept` holds it. Undefined when that cannot be told: a row is missing (pruned), one is a `resync` or
 * of a kind not listed, or more than MAX_FORWARD revisions passed.
 */
export async function readForward(pool: Pool, kept: OutgoingSnapshot, trees: DocumentTree = POLICY_TREE): Promise<OutgoingSnapshot | undefined> {
  const computed: ComputedTree[] = [];
  const snapshot = await withTransaction(
    pool,
    async (client): Promise<OutgoingSnapshot | undefined> => {
      const revision = await readRevision(client);
      if (revision === kept.revision) return kept;
      if (revision < kept.revision || revision - kept.revision > MAX_FORWARD) return undefined;
      const rows = await client.query<{ type: string | null; ids: Array<string | null> | null }>(
        `SELECT message->>'type' AS type,
                CASE message->>'type'
                  WHEN 'deploy' THEN ARRAY[message->'policy'->>'id']
                  WHEN 'revoke' THEN ARRAY[message->>'policyId']
                  WHEN 'documents' THEN ARRAY(SELECT jsonb_array_elements_text(
                    jsonb_path_query_array(message, '$.deploy[*].id') || COALESCE(message->'revoke', '[]'::jsonb)))
                  ELSE ARRAY[]::text[]
                END AS ids
           FROM pap.outbox WHERE revision > $1 AND revision <= $2`,
        [kept.revision, revision],
      );
      if (rows.rows.length !== revision - kept.revision) return undefined;
      const touched = new Set<string>();
      for (const { type, ids } of rows.rows) {
        if (type === null || !FORWARD_TYPES.has(type) || ids === null) return undefined;
        for (const id of ids) {
          if (typeof id !== 'string') return undefined;
          touched.add(id);
        }
      }
      const changed = touched.size === 0 ? [] : await readDocuments(client, trees, [...touched], computed);
      return { revision, policies: merged(kept.policies, touched, changed), ...(await readExtras(client)) };
    },
    { isolation: 'REPEATABLE READ', readOnly: true },
  );
  await writeBack(pool, computed);
  return snapshot;
}

/** `kept` without the `touched` documents, with `changed` (both in byte order of their ids, as PostgreSQL's "C" sorts). */
function merged(kept: readonly Document[], touched: ReadonlySet<string>, changed: readonly Document[]): Document[] {
  const out: Document[] = [];
  let next = 0;
  for (const document of kept) {
    if (touched.has(document.id)) continue;
    for (let coming = changed[next]; coming !== undefined && byteOrder(coming.id, document.id) < 0; coming = changed[++next]) out.push(coming);
    out.push(document);
  }
  out.push(...changed.slice(next));
  return out;
}

/** Code-point order, which is the byte order of the UTF-8 (JavaScript's `<` compares UTF-16 code units). */
export function byteOrder(left: string, right: string): number {
  const length = Math.min(left.length, right.length);
  for (let i = 0; i < length; i++) {
    const a = left.codePointAt(i) ?? 0;
    const b = right.codePointAt(i) ?? 0;
    if (a !== b) return a < b ? -1 : 1;
    if (a > 0xffff) i++;
  }
  return left.length - right.length;
}
