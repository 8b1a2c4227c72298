import request from 'supertest';
import { Type } from '@sinclair/typebox';
import type { NextFunction, Request, Response } from 'express';
import {
  createLogger,
  createMetrics,
  createServiceApp,
  HttpProblem,
  jsonResponse,
  mountRoutes,
  problemResponse,
  routesFor,
  serviceDocument,
} from '@custos/service-kit';

interface Deps {
  names: Map<string, string>;
}
const route = routesFor<Deps>();

const ROUTES = [
  route({
    method: 'get',
    path: '/things/{id}',
    summary: 'one thing',
    scope: 'thing:read',
    params: {
      id: {
        schema: Type.String({ pattern: '^t-[0-9]+$' }),
        description: 'a thing id',
        invalid: (id: string) => new HttpProblem(400, 'invalid_id', `\`${id}\` is not a thing id`),
        parse: (id: string) => Number(id.slice(2)),
      },
    },
    query: { view: { schema: Type.Unsafe<'short' | 'long'>({ enum: ['short', 'long'] }), normalize: (view: string) => view.toLowerCase() } },
    responses: { 200: jsonResponse('the thing', { type: 'object' }), 400: problemResponse('a bad id or view') },
    handler: (_req, res, { deps, params, query }) => {
      // The types follow the declarations: a number from `parse`, the enum (or nothing) from the query.
      const number: number = params.id;
      const view: 'short' | 'long' | undefined = query.view;
      res.json({ number, view: view ?? null, name: deps.names.get(String(number)) ?? null });
    },
  }),
  route({
    method: 'post',
    path: '/things',
    summary: 'add a thing',
    scope: 'thing:write',
    body: {
      media: 'json',
      limit: 256,
      schema: Type.Object({ name: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
      invalid: { code: 'invalid_thing', detail: 'the thing is not valid' },
    },
    responses: { 201: jsonResponse('added', { type: 'boolean' }) },
    handler: (_req, res, { deps, body }) => {
      deps.names.set(String(deps.names.size + 1), body.name);
      res.status(201).json(true);
    },
  }),
  route({
    method: 'post',
    path: '/things/{id}/note',
    summary: 'note on a thing',
    params: { id: { schema: Type.String({ maxLength: 4 }) } },
    body: { media: 'json', limit: 64, schema: Type.Object({ loud: Type.Optional(Type.Boolean()) }), optional: true },
    responses: { 200: jsonResponse('the note', { type: 'object' }) },
    handler: (_req, res, { params, body }) => void res.json({ id: params.id, loud: body?.loud ?? false }),
  }),
  route({
    method: 'put',
    path: '/things/{id}/text',
    summary: 'replace the text of a thing',
    params: { id: { schema: Type.String() } },
    body: { media: 'xml', limit: 32, description: 'the text as XML' },
    responses: { 200: { description: 'its length' } },
    handler: (_req, res, { body }) => void res.json(body.length),
  }),
];

/** Lets a request through when its `X-Scopes` header names the scope; the order of checks is what is tested. */
const authorize = (scope: string) => (req: Request, _res: Response, next: NextFunction) => {
  if (!String(req.headers['x-scopes'] ?? '').split(' ').includes(scope)) throw new HttpProblem(403, 'insufficient_scope', `needs \`${scope}\``);
  next();
};

function buildApp() {
  const document = serviceDocument({ info: { title: 'Things', version: '1', description: 'things' }, components: {}, routes: ROUTES, tagOf: () => 'things' });
  const service = createServiceApp({
    service: 'things',
    logger: createLogger('things', 'silent'),
    metrics: createMetrics('things', false),
    openapi: document,
    readiness: () => ({ ready: true }),
  });
  const deps: Deps = { names: new Map([['7', 'seven']]) };
  mountRoutes(service, ROUTES, deps, { authorize });
  return { app: service.finish(), document, deps };
}

describe('a route table', () => {
  const { app, document, deps } = buildApp();
  const reader = { 'X-Scopes': 'thing:read' };

  it('hands the handler the parsed path parameter and the normalized query', async () => {
    const res = await request(app).get('/things/t-7?view=LONG').set(reader).expect(200);
    expect(res.body).toEqual({ number: 7, view: 'long', name: 'seven' });
    expect((await request(app).get('/things/t-8').set(reader).expect(200)).body).toEqual({ number: 8, view: null, name: null });
  });

  it('checks the scope before anything of the request', async () => {
    const res = await request(app).get('/things/nonsense?view=odd').expect(403);
    expect(res.body.code).toBe('insufficient_scope');
  });

  it("answers a bad path parameter with the parameter's own problem", async () => {
    const res = await request(app).get('/things/x-1').set(reader).expect(400);
    expect(res.body).toMatchObject({ code: 'invalid_id', detail: '`x-1` is not a thing id' });
  });

  it('answers a bad query parameter naming it and the allowed values', async () => {
    const res = await request(app).get('/things/t-1?view=wide').set(reader).expect(400);
    expect(res.body).toMatchObject({ code: 'invalid_request', detail: 'the query parameter `view` is not valid' });
    expect(res.body.errors).toEqual([{ path: 'view', message: 'must be one of `short`, `long`' }]);
  });

  it('answers a path parameter without a problem of its own with a located invalid_request', async () => {
    const res = await request(app).post('/things/toolong/note').expect(400);
    expect(res.body.detail).toBe('the path parameter `id` is not valid');
    expect(res.body.errors).toEqual([{ path: 'id', message: 'must NOT have more than 4 characters' }]);
  });

  it('checks a JSON body against its schema with the route code and stores nothing when it fails', async () => {
    const writer = { 'X-Scopes': 'thing:write' };
    const bad = await request(app).post('/things').set(writer).send({ name: '', colour: 'red' }).expect(400);
    expect(bad.body).toMatchObject({ code: 'invalid_thing', detail: 'the thing is not valid' });
    expect(bad.body.errors).toEqual(
      expect.arrayContaining([
        { path: 'colour', message: 'is not a known field' },
        { path: 'name', message: 'must NOT have fewer than 1 characters' },
      ]),
    );
    expect(deps.names.size).toBe(1);
    await request(app).post('/things').set(writer).type('text/plain').send('x').expect(415);
    await request(app).post('/things').set(writer).send({ name: 'x'.repeat(300) }).expect(413);
    await request(app).post('/things').set(writer).send({ name: 'two' }).expect(201);
    expect(deps.names.get('2')).toBe('two');
  });

  it('lets a request without an optional body through, and checks one that has it', async () => {
    expect((await request(app).post('/things/a/note').expect(200)).body).toEqual({ id: 'a', loud: false });
    expect((await request(app).post('/things/a/note').send({ loud: true }).expect(200)).body).toEqual({ id: 'a', loud: true });
    expect((await request(app).post('/things/a/note').send({ loud: 'yes' }).expect(400)).body.errors).toEqual([{ path: 'loud', message: 'must be of type boolean' }]);
  });

  it('reads an XML body as text, and answers other methods of a path with 405', async () => {
    expect((await request(app).put('/things/a/text').type('application/xml').send('<a/>').expect(200)).body).toBe(4);
    const wrong = await request(app).delete('/things/a/text').expect(405);
    expect(wrong.headers.allow).toBe('PUT');
  });

  it('describes every route in the document it derives', () => {
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/things/{id}', '/things', '/things/{id}/note', '/things/{id}/text', '/health/live', '/docs']),
    );
    const one = document.paths['/things/{id}']?.get;
    expect(one).toMatchObject({
      tags: ['things'],
      summary: 'one thing',
      security: [{ bearer: ['thing:read'] }],
      parameters: [
        { name: 'id', in: 'path', required: true, description: 'a thing id', schema: { type: 'string', pattern: '^t-[0-9]+$' } },
        { name: 'view', in: 'query', required: false, schema: { enum: ['short', 'long'] } },
      ],
    });
    expect(document.paths['/things/{id}/note']?.post).toMatchObject({ security: [], requestBody: { required: false } });
    expect(document.paths['/things/{id}/text']?.put?.requestBody).toMatchObject({ required: true, description: 'the text as XML' });
  });

  it('refuses a table that declares an operation twice', () => {
    const twice = [ROUTES[1]!, ROUTES[1]!];
    expect(() => serviceDocument({ info: { title: 't', version: '1', description: 't' }, components: {}, routes: twice })).toThrow(
      'route `post /things` is declared twice',
    );
  });
});
