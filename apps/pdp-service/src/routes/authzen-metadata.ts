import type { Request, Response } from 'express';
import { ERROR_CODES, authzenMetadata } from '@custos/contracts';
import { problems } from '@custos/service-kit';

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
export const authzenMetadataRoute =
  (publicUrl: string | undefined) =>
  (req: Request, res: Response): void => {
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json(authzenMetadata(metadataBase(req, publicUrl)));
  };
