import type { NextFunction, Request, Response } from 'express';
import { sameOriginContentSecurityPolicy } from '@custos/service-kit';

/**
 * Only pap's own scripts, styles and calls (`data:` images cover the empty favicon the page names). The page itself
 * also allows the style elements that carry its one-time `nonce`: the editor (CodeMirror) writes its theme into them.
 */
export const consoleCsp = sameOriginContentSecurityPolicy;

/** Headers of every answer under `/console`. */
export function consoleSecurityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Content-Security-Policy', consoleCsp());
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  next();
}
