import request from 'supertest';
import { SCOPES } from '@custos/contracts';
import { dump, policyXml, startHarness, timerXml, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});


const validate = (kind: 'policy' | 'timer', xml: string, auth = h.bearer(), type = 'application/xml') =>
  request(h.app).post(`/ws/${kind}/validate`).set('Authorization', auth).set('Content-Type', type).send(xml);
const add = (kind: 'policy' | 'timer', xml: string) =>
  request(h.app).post(`/ws/${kind}`).set('Authorization', h.bearer()).set('Content-Type', 'application/xml').send(xml);

/** Line 4 of this policy names an attribute the language does not know. */
const MISTAKE = `<policy xmlns="http://www.mydata-control.de/4.0/mydataLanguage"
        xmlns:constant="http://www.mydata-control.de/4.0/constant" id="urn:policy:acme:typo">
  <mechanism event="urn:action:acme:show">
    <if><equals><constant:string valeu="a"/><constant:string value="a"/></equals><then><inhibit/></then></if>
  </mechanism>
</policy>`;

describe('POST /ws/policy/validate', () => {
  test('a valid policy: 200 valid with no errors, and nothing is stored', async () => {
    const before = await dump(h.pool);
    const res = await validate('policy', policyXml('urn:policy:acme:fine'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: true, errors: [] });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(await dump(h.pool)).toEqual(before);
  });

  test('an invalid policy: a 200 answer with the problems of the 400 an add answers, located, and nothing stored', async () => {
    const before = await dump(h.pool);
    const dry = await validate('policy', MISTAKE);
    const real = await add('policy', MISTAKE);
    // A check is a question: the browser logs no failed request for it. The add still refuses with a 400.
    expect(dry.status).toBe(200);
    expect(dry.headers['content-type']).toMatch(/^application\/json/);
    expect(real.status).toBe(400);
    const problem = dry.body as { valid: boolean; code: string; detail: string; errors: unknown[] };
    expect(problem.valid).toBe(false);
    expect(problem.code).toBe('invalid_policy');
    const refused = real.body as { code: string; detail: string; errors: unknown[] };
    expect({ code: problem.code, detail: problem.detail, errors: problem.errors }).toEqual({ code: refused.code, detail: refused.detail, errors: refused.errors });
    // `valeu` stands on line 4: one problem for the unknown attribute there, which names the `value` it was meant to be.
    expect(problem.errors).toEqual(
      expect.arrayContaining([expect.objectContaining({ line: 4, message: expect.stringContaining('`valeu` on `constant:string`; did you mean `value`?') })]),
    );
    expect(await dump(h.pool)).toEqual(before);
  });

  test('an id that exists already is no problem for a dry run (a replace would use it)', async () => {
    const xml = policyXml('urn:policy:acme:exists');
    expect((await add('policy', xml)).status).toBe(201);
    const res = await validate('policy', xml);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: true, errors: [] });
  });

  test('the scope of an add is needed, and the solution must be the token\'s', async () => {
    const readOnly = await validate('policy', policyXml('urn:policy:acme:x'), h.bearer({ scopes: [SCOPES.policyRead] }));
    expect(readOnly.status).toBe(403);
    const foreign = await validate('policy', policyXml('urn:policy:globex:x'));
    expect(foreign.status).toBe(403);
    expect((foreign.body as { code: string }).code).toBe('insufficient_scope');
    const anonymous = await request(h.app).post('/ws/policy/validate').set('Content-Type', 'application/xml').send(policyXml('urn:policy:acme:x'));
    expect(anonymous.status).toBe(401);
  });

  test('not XML: 415; other methods: 405 with Allow', async () => {
    expect((await validate('policy', '{}', h.bearer(), 'application/json')).status).toBe(415);
    const get = await request(h.app).get('/ws/policy/validate').set('Authorization', h.bearer());
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });
});

describe('POST /ws/timer/validate', () => {
  test('a valid timer: 200 true; nothing stored', async () => {
    const before = await dump(h.pool);
    const res = await validate('timer', timerXml('urn:timer:acme:nightly'));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: true, errors: [] });
    expect(await dump(h.pool)).toEqual(before);
  });

  test('a cron that is not quartz: 200 with the located problems of the add\'s 400', async () => {
    const xml = timerXml('urn:timer:acme:broken', 'every night');
    const dry = await validate('timer', xml);
    expect(dry.status).toBe(200);
    const real = await add('timer', xml);
    expect(real.status).toBe(400);
    const { code, detail, errors } = real.body as { code: string; detail: string; errors: unknown[] };
    expect(code).toBe('invalid_policy');
    expect(dry.body).toEqual({ valid: false, code, detail, errors });
  });
});
