import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { ERROR_CODES } from '@custos/contracts';
import { HttpProblem } from '@custos/service-kit';
import { consoleCsp } from './security-headers';

/** Hashed file names change with their content, so a browser may keep them for a year without asking. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The built console: its hashed assets, and its page, which names the current assets and carries a one-time style
 * nonce, and so is never cached.
 */
export interface ConsoleAssets {
  assets: RequestHandler;
  page: (req: Request, res: Response) => void;
}

export function consoleAssets(dir: string): ConsoleAssets {
  const indexFile = path.join(dir, 'index.html');
  // Read once: the build does not change under a running pap. A pap built without the console still starts.
  const index = existsSync(indexFile) ? readFileSync(indexFile, 'utf8') : undefined;
  return {
    assets: express.static(path.join(dir, 'assets'), {
      index: false,
      redirect: false,
      dotfiles: 'ignore',
      etag: false,
      setHeaders: (res) => res.setHeader('Cache-Control', IMMUTABLE),
    }),
    page: (_req, res) => {
      if (index === undefined) {
        throw new HttpProblem(404, ERROR_CODES.notFound, 'the console is not built; run `npm run build`');
      }
      // A fresh nonce for every page: the page hands it to the editor, which needs it for its style elements.
      const nonce = randomBytes(16).toString('base64');
      res.setHeader('Cache-Control', 'no-cache');
      res.setHeader('Content-Security-Policy', consoleCsp(nonce));
      res.type('html').send(index.replace('<head>', `<head>\n    <meta name="csp-nonce" content="${nonce}" />`));
    },
  };
}
