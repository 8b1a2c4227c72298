import type { DocumentMetadata, DocumentRecord, DocumentRow, DocumentTable } from '../store/documents';

/**
 * Everything in which policies and timers differ, for the one store and the one route set they share
 * (api.md §4: timers mirror the policy paths, with the same answers).
 */
export interface DocumentKind<M extends DocumentMetadata, R> {
  /** The URN kind of its ids (`urn:<name>:…`), its URL segment (`/ws/<name>`, `/ws/<name>-ids`) and its word in messages. */
  readonly name: 'policy' | 'timer';
  readonly table: DocumentTable<M>;
  /** Reads XML completely into what is stored; any problem is a 400 `invalid_policy` listing each with its location. */
  validate(xml: string): DocumentRecord<M>;
  /** The JSON representation of a stored document. */
  toResource(row: DocumentRow<M>): R;
  /** Whether `GET /ws/<name>/deployed` lists the deployed documents in full (policies only: api.md §4 no. 3). */
  readonly listsDeployed: boolean;
}

/** Policy and timer bodies up to 5 MiB (api.md §4; the hardened reader refuses anything larger anyway). */
export const DOCUMENT_BODY_LIMIT = 5 * 1024 * 1024;

/**
 * What policies and timers show alike, around the metadata of their kind: id, metadata, deployment, XML and times,
 * in the order the answers have always had.
 */
export function documentResource<M extends DocumentMetadata, T extends object>(row: DocumentRow<M>, metadata: T) {
  return {
    id: { identifier: row.id },
    ...metadata,
    deployed: row.deployed,
    xml: row.xml,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
