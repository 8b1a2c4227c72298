import type { Request } from 'express';
import { AUTHZEN_PATHS, ERROR_CODES, authzenMetadata } from '@custos/contracts';
import { jsonResponse, problemResponse, problems } from '@custos/service-kit';
import { pdpRoute } from './context';

/** A Host header: a DNS name or an IPv4 or bracketed IPv6 address, with an optional port. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/**
 * The base the metadata names: the configured public URL (`PDP_PUBLIC_URL`, what a deployment behind TLS sets), or
 * else the scheme and host the caller reached, so `policy_decision_point` equals the identifier the PEP derived the
 * well-known URL from (AuthZEN §9.2.3) also behind the gateway, which passes Host and X-Forwarded-Proto on.
 */
export function metadataBase(req: Request, publicUrl: string | undefined): string {
  if (publicUrl !== undefined) return publicUrl;
  const host = req.headers.host ?? '';
  if (!HOST.test(host)) throw problems.badRequest(ERROR_CODES.invalidRequest, 'the `Host` header is not a host name with an optional port');
  const forwarded = req.headers['x-forwarded-proto'];
  const scheme = forwarded === 'https' || forwarded === 'http' ? forwarded : 'http';
  return `${scheme}://${host}`;
}

/**
 * GET /.well-known/authzen-configuration (AuthZEN §9): public, like the other discovery documents (no policy content,
 * nothing about any solution); clients may cache it for five minutes (§11, metadata caching).
 */
export const authzenMetadataRoute = pdpRoute({
  method: 'get',
  path: AUTHZEN_PATHS.metadata,
  operationId: 'authzenMetadata',
  summary: 'AuthZEN PDP metadata (§9)',
  description:
    'Where the AuthZEN endpoints are; no token needed. `policy_decision_point` is `PDP_PUBLIC_URL`, or else the scheme (`X-Forwarded-Proto`) and `Host` the request reached. No search endpoints are offered.',
  responses: {
    200: jsonResponse('the metadata (`Cache-Control: public, max-age=300`)', { $ref: '#/components/schemas/PdpMetadata' }),
    400: problemResponse('a `Host` header that is not a host name (`invalid_request`), when `PDP_PUBLIC_URL` is not set'),
    405: problemResponse('any method other than GET or HEAD'),
  },
  handler: (req, res, { deps }) => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json(authzenMetadata(metadataBase(req, deps.publicUrl)));
  },
});
