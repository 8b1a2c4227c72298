/** A self-contained HTML page listing the operations of an OpenAPI document (no external assets). */
const ENTITIES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escape = (text: string) => text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

interface Operation {
  summary?: string;
  description?: string;
  responses?: Record<string, { description?: string }>;
}

export function renderDocsPage(openapi: object): string {
  const doc = openapi as {
    info?: { title?: string; version?: string; description?: string };
    paths?: Record<string, Record<string, Operation>>;
  };
  const title = escape(doc.info?.title ?? 'API');
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
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .2rem}section{border-top:1px solid #ddd}</style>
</head><body><h1>${title} <small>${escape(doc.info?.version ?? '')}</small></h1>
<p>${escape(doc.info?.description ?? '')}</p><p>Machine-readable: <a href="/openapi.json">/openapi.json</a></p>
${rows.join('\n')}</body></html>`;
}
