import request from 'supertest';
import { Writable } from 'node:stream';
import { createLogger, createMetrics, createServiceApp, DOCS_CONTENT_SECURITY_POLICY } from '@custos/service-kit';

function buildApp() {
  const logger = createLogger('test', 'silent', new Writable({ write: (_chunk, _encoding, done) => done() }));
  const kit = createServiceApp({
    service: 'test',
    logger,
    metrics: createMetrics('test', false),
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Test "API" <b>', version: '1' },
      paths: { '/things/{id}': { get: { summary: 'one thing', responses: { '200': { description: 'the thing' } } } } },
    },
    readiness: () => ({ ready: true }),
  });
  return kit.finish();
}

const assetsOf = (html: string) => [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1] ?? '');

describe('the docs page', () => {
  const app = buildApp();

  it('is served under a policy that allows this service only', async () => {
    const page = await request(app).get('/docs').expect(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    const policy = page.headers['content-security-policy'];
    expect(policy).toBe(DOCS_CONTENT_SECURITY_POLICY);
    // Every fetching directive names this origin only; nothing inline, nothing evaluated, no CDN.
    const directives = new Map(DOCS_CONTENT_SECURITY_POLICY.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(directives.get('default-src')).toEqual(["'none'"]);
    for (const name of ['script-src', 'style-src', 'connect-src']) expect(directives.get(name)).toEqual(["'self'"]);
    expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    expect(page.headers['x-content-type-options']).toBe('nosniff');
  });

  it('loads its scripts and styles from this service, none inline', async () => {
    const page = await request(app).get('/docs').expect(200);
    const assets = assetsOf(page.text).filter((url) => url !== '/openapi.json');
    expect(assets.length).toBeGreaterThanOrEqual(4);
    for (const url of assets) expect(url).toMatch(/^\/docs\/assets\/[a-z0-9-]+\.(js|css|png)$/);
    expect(page.text).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(page.text).not.toMatch(/<style|style="/);
    for (const url of assets) {
      const asset = await request(app).get(url);
      expect({ url, status: asset.status }).toEqual({ url, status: 200 });
      const expected = url.endsWith('.js') ? /^text\/javascript/ : url.endsWith('.css') ? /^text\/css/ : /^image\/png/;
      expect(asset.headers['content-type']).toMatch(expected);
      expect(asset.headers['content-security-policy']).toBe(DOCS_CONTENT_SECURITY_POLICY);
    }
    const bundle = await request(app).get('/docs/assets/swagger-ui-bundle.js').expect(200);
    expect(bundle.text).toContain('SwaggerUIBundle');
    const starter = await request(app).get('/docs/assets/custos-docs.js').expect(200);
    expect(starter.text).toContain("url: '/openapi.json'");
  });

  it('lists the operations, escaped, for readers without JavaScript', async () => {
    const page = await request(app).get('/docs').expect(200);
    const fallback = /<noscript>([\s\S]*)<\/noscript>/.exec(page.text)?.[1] ?? '';
    expect(fallback).toContain('<code>GET /things/{id}</code>');
    expect(fallback).toContain('one thing');
    expect(page.text).toContain('<title>Test &quot;API&quot; &lt;b&gt;</title>');
    expect(page.text).not.toContain('<b>');
  });

  it('serves nothing else from the assets folder', async () => {
    for (const url of ['/docs/assets/swagger-ui-bundle.js.map', '/docs/assets/package.json', '/docs/assets/..%2Fpackage.json', '/docs/assets/']) {
      const missing = await request(app).get(url);
      expect({ url, status: missing.status, code: missing.body.code }).toEqual({ url, status: 404, code: 'not_found' });
    }
    const posted = await request(app).post('/docs/assets/swagger-ui.css');
    expect(posted.status).toBe(405);
    expect(posted.headers.allow).toBe('GET, HEAD');
    const wrongMethod = await request(app).delete('/docs');
    expect(wrongMethod.status).toBe(405);
  });
});
