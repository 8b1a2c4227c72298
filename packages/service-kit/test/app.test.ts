import request from 'supertest';
import { Writable } from 'node:stream';
import { createLogger, createMetrics, createServiceApp, jsonBody, HttpProblem, xmlBody } from '@custos/service-kit';

function buildApp() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const logger = createLogger('test', 'info', sink);
  const kit = createServiceApp({
    service: 'test',
    logger,
    metrics: createMetrics('test', false),
    openapi: { openapi: '3.1.0', info: { title: 'Test API', version: '1' }, paths: { '/echo': { post: { summary: 'echo <it>' } } } },
    readiness: () => ({ ready: false, reason: 'warming up' }),
  });
  kit.route('/echo', { post: [jsonBody(64), (req, res) => void res.json(req.body)] });
  kit.route('/xml', { post: [xmlBody(64), (req, res) => void res.type('text').send(String(req.body).length.toString())] });
  kit.route('/teapot', { get: () => { throw new HttpProblem(418, 'teapot', 'short and stout'); } });
  kit.route('/bug', { get: () => { throw new Error('secret internals'); } });
  return { app: kit.finish(), lines };
}

describe('service app', () => {
  const { app, lines } = buildApp();

  it('echoes JSON and sets a request id', async () => {
    const res = await request(app).post('/echo').send({ a: 1 }).expect(200);
    expect(res.body).toEqual({ a: 1 });
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('keeps a safe incoming request id and replaces an unsafe one', async () => {
    const kept = await request(app).post('/echo').set('X-Request-Id', 'abc-123').send({}).expect(200);
    expect(kept.headers['x-request-id']).toBe('abc-123');
    const replaced = await request(app).post('/echo').set('X-Request-Id', 'a b\tc').send({}).expect(200);
    expect(replaced.headers['x-request-id']).not.toBe('a b\tc');
  });

  it('locates a JSON syntax error', async () => {
    const res = await request(app).post('/echo').set('Content-Type', 'application/json').send('{\n  "a": 1,\n  oops\n}');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('malformed_json');
    expect(res.body.errors[0]).toMatchObject({ line: 3, column: 3 });
  });

  it('refuses an empty body as malformed', async () => {
    const res = await request(app).post('/echo').set('Content-Type', 'application/json').send('');
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe('the body is empty');
  });

  it('refuses a wrong media type with 415 and names the accepted ones', async () => {
    const res = await request(app).post('/echo').set('Content-Type', 'text/plain').send('{}');
    expect(res.status).toBe(415);
    expect(res.body.detail).toContain('`application/json`');
  });

  it('refuses a non-UTF-8 charset', async () => {
    const res = await request(app).post('/echo').set('Content-Type', 'application/json; charset=latin1').send('{}');
    expect(res.status).toBe(415);
  });

  it('refuses an oversized body with 413', async () => {
    const res = await request(app).post('/echo').set('Content-Type', 'application/json').send(JSON.stringify({ a: 'x'.repeat(100) }));
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  it('accepts both XML media types', async () => {
    await request(app).post('/xml').set('Content-Type', 'application/xml').send('<a/>').expect(200, '4');
    await request(app).post('/xml').set('Content-Type', 'text/xml; charset=utf-8').send('<a/>').expect(200, '4');
  });

  it('answers unknown routes with a 404 problem', async () => {
    const res = await request(app).get('/nowhere').expect(404);
    expect(res.body).toMatchObject({ type: 'urn:custos:problem:not_found', status: 404, code: 'not_found' });
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const res = await request(app).get('/echo').expect(405);
    expect(res.headers.allow).toBe('POST');
    expect(res.body.code).toBe('method_not_allowed');
    const options = await request(app).options('/echo').expect(204);
    expect(options.headers.allow).toBe('POST, OPTIONS');
  });

  it('passes known problems through', async () => {
    const res = await request(app).get('/teapot').expect(418);
    expect(res.body).toMatchObject({ code: 'teapot', detail: 'short and stout' });
  });

  it('hides a bug behind a 500 without internals but logs it', async () => {
    const res = await request(app).get('/bug').expect(500);
    expect(JSON.stringify(res.body)).not.toContain('secret internals');
    expect(res.body.code).toBe('internal_error');
    await new Promise((resolve) => setImmediate(resolve));
  });

  it('reports readiness and liveness', async () => {
    await request(app).get('/health/live').expect(200, { status: 'live' });
    const ready = await request(app).get('/health/ready').expect(503);
    expect(ready.body).toEqual({ ready: false, reason: 'warming up' });
  });

  it('serves metrics, openapi and an escaped docs page', async () => {
    await request(app).get('/echo-not').expect(404);
    const metrics = await request(app).get('/metrics').expect(200);
    expect(metrics.text).toContain('http_requests_total{method="GET",route="unmatched",status="404",service="test"}');
    const openapi = await request(app).get('/openapi.json').expect(200);
    expect(openapi.body.info.title).toBe('Test API');
    const docs = await request(app).get('/docs').expect(200);
    expect(docs.headers['content-type']).toMatch(/text\/html/);
    expect(docs.text).toContain('echo &lt;it&gt;');
  });

  it('never logs an authorization header', async () => {
    await request(app).post('/echo').set('Authorization', 'Bearer super-secret-token').send({}).expect(200);
    expect(lines.join('')).not.toContain('super-secret-token');
  });
});
