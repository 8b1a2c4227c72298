import type { Route } from '@custos/service-kit';
import type { DocumentKind } from '../documents/kind';
import type { DocumentMetadata } from '../store/documents';
import type { RouteContext } from './context';
import { addDocument } from './document-add';
import { deployDocument } from './document-deploy';
import { deployedDocuments } from './document-deployed';
import { diffVersions } from './document-diff';
import { documentIds } from './document-ids';
import { removeDocument } from './document-remove';
import { replaceDocument } from './document-replace';
import { restoreVersion } from './document-restore';
import { revokeDocument } from './document-revoke';
import { showDocument } from './document-show';
import { documentStatus } from './document-status';
import { validateDocument } from './document-validate';
import { listVersions, showVersion } from './document-versions';

/** The operations of one document kind (api.md §4), the same for policies and timers apart from the segment. */
export function documentRoutes<M extends DocumentMetadata, R>(kind: DocumentKind<M, R>): Array<Route<RouteContext>> {
  return [
    // Before `/{id}`, which would otherwise read `validate` and `deployed` as ids.
    validateDocument(kind),
    addDocument(kind),
    ...(kind.listsDeployed ? [deployedDocuments(kind)] : []),
    showDocument(kind),
    replaceDocument(kind),
    removeDocument(kind),
    deployDocument(kind),
    revokeDocument(kind, 'get'),
    revokeDocument(kind, 'post'),
    documentStatus(kind),
    listVersions(kind),
    showVersion(kind),
    diffVersions(kind),
    restoreVersion(kind),
    documentIds(kind, false),
    documentIds(kind, true),
  ];
}
