import type { Response } from 'express';
import type { KeyStore } from '../keys/key-store';

export const JWKS_PATH = '/.well-known/jwks.json';
/** Short enough that a new key reaches verifiers soon; they refetch on an unknown kid anyway. */
export const JWKS_MAX_AGE_SECONDS = 60;

/** GET /.well-known/jwks.json: every published verification key (RFC 7517). */
export async function jwksHandler(keys: KeyStore, res: Response): Promise<void> {
  const jwks = await keys.jwks();
  res.setHeader('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
  res.status(200).json(jwks);
}
