import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { toRevocationDocument } from '@custos/service-kit';
import type { Clock } from '../ratelimit/failure-limiter';
import type { RevocationStore } from '../revocation/revocation-store';

/**
 * GET /oauth/revocations: every revocation still in force, public like the JWKS (pap and pdp load it
 * without a token). It reveals only SHA-256 digests of client and token ids, and when each entry
 * expires. An ETag lets the replicas' polls answer 304 when nothing changed.
 */
export async function revocationsHandler(store: RevocationStore, clock: Clock, req: Request, res: Response): Promise<void> {
  const body = JSON.stringify(toRevocationDocument(await store.list(clock())));
  const etag = `"${createHash('sha256').update(body).digest('base64url')}"`;
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('ETag', etag);
  if (req.headers['if-none-match'] === etag) {
    res.status(304).end();
    return;
  }
  res.status(200).type('application/json').send(body);
}
