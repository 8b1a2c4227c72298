import type { Express, RequestHandler } from 'express';
import type { RouteHandlers } from './app';
import { DOCS_ASSETS_PATH, docsAssets } from './docs-assets';

export { DOCS_ASSETS_PATH };
export const DOCS_PATH = '/docs';

/**
 * A page that runs only its service's own scripts and styles and talks only to that service: no inline script, no
 * other origin, no framing; images may be inline data (icons). `styleNonce` also admits the style elements that
 * carry it, for editors that write their theme into such elements.
 */
export const sameOriginContentSecurityPolicy = (styleNonce?: string): string =>
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

/** The docs page (Swagger UI): its own assets, and "try it" calls to this service only. */
export const DOCS_CONTENT_SECURITY_POLICY = sameOriginContentSecurityPolicy();

const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

interface Operation {
  summary?: string;
  description?: string;
  responses?: Record<string, { description?: string }>;
}

interface Document {
  info?: { title?: string; version?: string; description?: string };
  paths?: Record<string, Record<string, Operation>>;
}

/** The operations as plain HTML, for readers without JavaScript (the interactive page needs it). */
function operationList(doc: Document): string {
  const rows: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(methods)) {
      if (typeof op !== 'object' || op === null || method === 'parameters') continue;
      const responses = Object.entries(op.responses ?? {})
        .map(([code, r]) => `<li><code>${escape(code)}</code> ${escape(r.description ?? '')}</li>`)
        .join('');
      rows.push(
        `<section><h2><code>${escape(method.toUpperCase())} ${escape(path)}</code></h2>` +
          `<p>${escape(op.summary ?? '')}</p>${op.description ? `<p>${escape(op.description)}</p>` : ''}` +
          `<ul>${responses}</ul></section>`,
      );
    }
  }
  return rows.join('\n');
}

/**
 * The interactive API reference (Swagger UI, loaded from this service) of an OpenAPI document,
 * with the operations listed in plain HTML as well for readers without JavaScript.
 */
export function renderDocsPage(openapi: object): string {
  const doc = openapi as Document;
  const title = escape(doc.info?.title ?? 'API');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="icon" type="image/png" href="${DOCS_ASSETS_PATH}/favicon-32x32.png">
<link rel="stylesheet" href="${DOCS_ASSETS_PATH}/swagger-ui.css">
<link rel="stylesheet" href="${DOCS_ASSETS_PATH}/custos-docs.css">
</head>
<body>
<div id="swagger-ui"></div>
<noscript><div class="custos-fallback">
<h1>${title} <small>${escape(doc.info?.version ?? '')}</small></h1>
<p>${escape(doc.info?.description ?? '')}</p><p>Machine-readable: <a href="/openapi.json">/openapi.json</a></p>
${operationList(doc)}
</div></noscript>
<script src="${DOCS_ASSETS_PATH}/swagger-ui-bundle.js"></script>
<script src="${DOCS_ASSETS_PATH}/custos-docs.js"></script>
</body>
</html>
`;
}

/** GET /docs (the page) and its assets under /docs/assets, every answer under the page's policy. */
export function mountDocs(app: Express, route: (path: string, handlers: RouteHandlers) => void, openapi: object): void {
  const page = renderDocsPage(openapi);
  const secure: RequestHandler = (_req, res, next) => {
    res.setHeader('Content-Security-Policy', DOCS_CONTENT_SECURITY_POLICY);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    next();
  };
  app.use(DOCS_ASSETS_PATH, secure, docsAssets());
  route(DOCS_PATH, { get: [secure, (_req, res) => void res.type('html').send(page)] });
}
