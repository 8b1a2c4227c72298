import type { RouteHandlers } from '@custos/service-kit';
import type { KeyStore } from '../keys/key-store';

export const JWKS_PATH = '/.well-known/jwks.json';
/** Short enough that a new key reaches verifiers soon; they refetch on an unknown kid anyway. */
export const JWKS_MAX_AGE_SECONDS = 60;

/** GET /.well-known/jwks.json: every published verification key (RFC 7517). */
export function jwksRoute(keys: KeyStore): RouteHandlers {
  return {
    get: async (_req, res) => {
      const jwks = await keys.jwks();
      res.setHeader('Cache-Control', `public, max-age=${JWKS_MAX_AGE_SECONDS}`);
      res.status(200).json(jwks);
    },
  };
}
