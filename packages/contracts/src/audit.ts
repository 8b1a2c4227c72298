import { Type, type Static } from '@sinclair/typebox';

/**
 * The audit trail of management (pap `GET /ws/audit`, auth `GET /audit`): one record per change of components,
 * policies, timers, solution settings, change sets, clients, signing keys and revocations, and one per refused or
 * failed attempt at one. Each service keeps its own records; pap's answer merges auth's.
 */

export const AUDIT_SERVICES = ['pap', 'auth'] as const;
export type AuditService = (typeof AUDIT_SERVICES)[number];

export const AUDIT_OUTCOMES = ['accepted', 'refused', 'failed'] as const;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T, description: string) => Type.Union([schema, Type.Null()], { description });

export const auditRecordSchema = Type.Object({
  id: Type.String({ description: 'unique across services: `<service>:<sequence>`' }),
  service: Type.Union(AUDIT_SERVICES.map((name) => Type.Literal(name)), { description: 'the service that keeps the record' }),
  at: Type.String({ description: 'when, RFC 3339 in UTC with microseconds' }),
  who: nullable(Type.String(), 'the client id that made the request; null when no token (or client secret) was accepted'),
  operation: Type.String({ description: 'what was asked, e.g. `policy.deploy`, `client.create`' }),
  target: nullable(Type.String(), 'the id it was asked of (a document, component, solution or client), when there is one'),
  revision: Type.Union([Type.Integer(), Type.Null()], { description: 'the revision of the deployed set the change took, when it took one' }),
  outcome: Type.Union(AUDIT_OUTCOMES.map((name) => Type.Literal(name)), {
    description: '`accepted` (written in the transaction of the change), `refused` (a 4xx), `failed` (a 5xx)',
  }),
  status: Type.Integer({ description: 'the HTTP status answered (0 for a command-line change)' }),
  reason: nullable(Type.String(), 'why it was refused or failed: the problem code and detail'),
  address: nullable(Type.String(), 'where the request came from, as the service sees it (honouring its trust-proxy setting)'),
  requestId: nullable(Type.String(), 'the `X-Request-Id` of the request'),
});
export type AuditRecord = Static<typeof auditRecordSchema>;

export const auditPageSchema = Type.Object({
  records: Type.Array(auditRecordSchema, { description: 'newest first' }),
  next: Type.Union([Type.String(), Type.Null()], { description: 'the `cursor` of the next page; null on the last' }),
  incomplete: Type.Array(Type.String(), { description: 'services whose records could not be read for this page (pap only: `auth`)' }),
});
export type AuditPage = Static<typeof auditPageSchema>;

/** The filters of `GET /ws/audit` and `GET /audit`, as query parameters. */
export interface AuditQuery {
  who?: string;
  /** An exact operation (`policy.deploy`), or a family without a dot (`policy` matches every `policy.*`). */
  operation?: string;
  target?: string;
  outcome?: AuditOutcome;
  /** RFC 3339, inclusive. */
  since?: string;
  /** RFC 3339, exclusive. */
  until?: string;
  limit?: number;
  cursor?: string;
}

export const AUDIT_DEFAULT_LIMIT = 50;
export const AUDIT_MAX_LIMIT = 500;

/** The order of records, newest first: a page ends at a record; the next starts after it. */
export interface AuditCursor {
  at: string;
  service: string;
  seq: number;
}

export function encodeAuditCursor(cursor: AuditCursor): string {
  return `${cursor.at}~${cursor.service}~${cursor.seq}`;
}

export function decodeAuditCursor(text: string): AuditCursor | undefined {
  const match = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z)~([a-z]+)~(\d{1,15})$/.exec(text);
  if (!match?.[1] || !match[2] || !match[3]) return undefined;
  return { at: match[1], service: match[2], seq: Number(match[3]) };
}

/** Newest first, then by service and sequence descending: the order pages follow. */
export function compareAuditRecords(a: AuditRecord, b: AuditRecord): number {
  if (a.at !== b.at) return a.at < b.at ? 1 : -1;
  if (a.service !== b.service) return a.service < b.service ? 1 : -1;
  return sequenceOf(b) - sequenceOf(a);
}

export const sequenceOf = (record: AuditRecord): number => Number(record.id.slice(record.id.indexOf(':') + 1));
