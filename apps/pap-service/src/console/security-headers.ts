import type { NextFunction, Request, Response } from 'express';

/**
 * Only pap's own scripts, styles and calls: no inline script, no other origin, no framing. `data:` images cover the
 * empty favicon the page names so the browser does not ask for one. The page itself also allows the style elements
 * that carry its one-time `nonce`: the editor (CodeMirror) writes its theme into such elements.
 */
export const consoleCsp = (styleNonce?: string): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    styleNonce === undefined ? "style-src 'self'" : `style-src 'self' 'nonce-${styleNonce}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');

/** Headers of every answer under `/console`. */
export function consoleSecurityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.setHeader('Content-Security-Policy', consoleCsp());
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  next();
}
