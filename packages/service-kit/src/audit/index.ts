export * from './audit-log';
export type { AuditFilter } from './audit-query';
export * from './audit-route';
export * from './retention';
