import type { ServiceApp } from '@custos/service-kit';
import type { DocumentMetadata } from '../store/documents';
import { addDocument } from './document-add';
import type { DocumentRouteContext } from './document-context';
import { deployDocument } from './document-deploy';
import { deployedDocuments } from './document-deployed';
import { documentIds } from './document-ids';
import { removeDocument } from './document-remove';
import { replaceDocument } from './document-replace';
import { revokeDocument } from './document-revoke';
import { showDocument } from './document-show';
import { documentStatus } from './document-status';

/** The paths of one document kind (api.md §4), the same for policies and timers apart from the segment. */
export function mountDocumentRoutes<M extends DocumentMetadata, R>(service: ServiceApp, ctx: DocumentRouteContext<M, R>): void {
  const base = `/ws/${ctx.kind.name}`;
  service.route(base, { post: addDocument(ctx) });
  // Before `${base}/:id`, which would otherwise read `deployed` as an id.
  if (ctx.kind.listsDeployed) service.route(`${base}/deployed`, { get: deployedDocuments(ctx) });
  service.route(`${base}/:id`, { get: showDocument(ctx), put: replaceDocument(ctx), delete: removeDocument(ctx) });
  service.route(`${base}/:id/deploy`, { post: deployDocument(ctx) });
  const revoke = revokeDocument(ctx);
  service.route(`${base}/:id/revoke`, { get: revoke, post: revoke });
  service.route(`${base}/:id/status`, { get: documentStatus(ctx) });
  service.route(`${base}-ids`, { get: documentIds(false)(ctx) });
  service.route(`${base}-ids/deployed`, { get: documentIds(true)(ctx) });
}
