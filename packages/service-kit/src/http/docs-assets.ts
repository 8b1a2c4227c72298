import path from 'node:path';
import type { NextFunction, Request, Response } from 'express';
import { problems } from './problem';

/** Where the docs page loads its scripts and styles from: this service, never a CDN. */
export const DOCS_ASSETS_PATH = '/docs/assets';

/** Only what the page needs, so the rest of the package (source maps, other bundles) is not served. */
const VENDOR_FILES: Record<string, string> = {
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui.css': 'text/css; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/**
 * Starts Swagger UI on this service's own document. A file rather than an inline script, so the
 * page's policy can forbid inline scripts altogether.
 */
const STARTER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayRequestDuration: true,
    filter: true,
    persistAuthorization: false,
    validatorUrl: null,
  });
});
`;

/** Small touches: the page has no top bar, so the document's title needs room at the top. */
const STYLE = `body { margin: 0; background: #fafafa; }
.swagger-ui .information-container { padding-top: 1rem; }
.custos-fallback { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }
.custos-fallback code { background: #f3f3f3; padding: 0 .2rem; }
.custos-fallback section { border-top: 1px solid #ddd; }
`;

const OWN_FILES: Record<string, { type: string; body: string }> = {
  'custos-docs.js': { type: 'text/javascript; charset=utf-8', body: STARTER },
  'custos-docs.css': { type: 'text/css; charset=utf-8', body: STYLE },
};

function vendorFolder(): string {
  return path.dirname(require.resolve('swagger-ui-dist/package.json'));
}

/**
 * Serves the assets of the docs page under DOCS_ASSETS_PATH (mount it there). Names not in the
 * tables fall through to the 404 problem; methods other than GET and HEAD get a 405.
 */
export function docsAssets(): (req: Request, res: Response, next: NextFunction) => void {
  const folder = vendorFolder();
  return (req, res, next) => {
    const name = req.path.replace(/^\//, '');
    const own = Object.hasOwn(OWN_FILES, name) ? OWN_FILES[name] : undefined;
    const vendor = Object.hasOwn(VENDOR_FILES, name) ? VENDOR_FILES[name] : undefined;
    if (own === undefined && vendor === undefined) return next();
    if (req.method !== 'GET' && req.method !== 'HEAD') return next(problems.methodNotAllowed(req.method, ['GET', 'HEAD']));
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (own !== undefined) {
      res.type(own.type).send(own.body);
      return;
    }
    res.sendFile(path.join(folder, name), { headers: { 'Content-Type': vendor }, cacheControl: false }, (error?: Error) => {
      if (error) next(error);
    });
  };
}
