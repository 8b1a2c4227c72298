import type { Request, Response } from 'express';
import { FORM_TYPES, readBody, requireMediaType, type Logger } from '@custos/service-kit';
import { callUpstream, relay } from './upstream';

/** A client-credentials request is a few hundred bytes; anything near this is not one. */
const TOKEN_BODY_LIMIT = 16 * 1024;

/**
 * `POST /console/token`: forwards a token request to auth's `/oauth/token` as it came (Basic credentials, form
 * body) and its answer back (status, body, caching headers), so the console needs no CORS from auth. pap keeps
 * nothing of it. auth limits failed sign-ins per address, so pap tells it the browser's: `X-Forwarded-For` holds
 * that one address, as pap sees it (the socket's, or what a proxy named in `PAP_TRUST_PROXY` says), never what the
 * browser wrote there. auth believes it when `AUTH_TRUST_PROXY` names pap; otherwise every console sign-in counts
 * against pap's own address (docs/security.md).
 */
export function tokenProxy(authUrl: string, logger: Logger): (req: Request, res: Response) => Promise<void> {
  const target = `${authUrl.replace(/\/+$/, '')}/oauth/token`;
  return async (req, res) => {
    requireMediaType(req, FORM_TYPES);
    const body = await readBody(req, TOKEN_BODY_LIMIT);
    const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
    if (typeof req.headers.authorization === 'string') headers.Authorization = req.headers.authorization;
    const browser = req.ip ?? req.socket.remoteAddress;
    if (browser !== undefined) headers['X-Forwarded-For'] = browser;
    const upstream = await callUpstream('auth-service', target, { method: 'POST', headers, body }, logger);
    res.setHeader('Cache-Control', 'no-store');
    // auth's `WWW-Authenticate: Basic` on a wrong secret would make the browser pop up its own password prompt.
    await relay(upstream, res, ['www-authenticate']);
  };
}
