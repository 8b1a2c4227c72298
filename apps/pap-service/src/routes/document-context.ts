import type { RequestHandler } from 'express';
import type { TokenVerifier } from '@custos/service-kit';
import type { DocumentKind } from '../documents/kind';
import type { DocumentMetadata, DocumentStore } from '../store/documents';

/** What a policy or timer route needs: the kind it serves and that kind's store. */
export interface DocumentRouteContext<M extends DocumentMetadata, R> {
  verifier: TokenVerifier;
  kind: DocumentKind<M, R>;
  store: DocumentStore<M>;
}

export type DocumentRouteFactory = <M extends DocumentMetadata, R>(ctx: DocumentRouteContext<M, R>) => RequestHandler[];
