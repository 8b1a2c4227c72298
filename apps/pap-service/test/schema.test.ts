import Ajv from 'ajv';
import request from 'supertest';
import { policyLanguageSchema } from '@custos/contracts';
import { startHarness, type Harness } from './harness';

/** The policy language for editors: public, as the language is; the XSD's imports resolve against pap itself. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

test('the language description needs no token and has the shape of the contract', async () => {
  const res = await request(h.app).get('/schema/policy-language.json');
  expect(res.status).toBe(200);
  expect(res.headers['cache-control']).toBe('public, max-age=3600');
  const valid = new Ajv({ strict: false, allErrors: true }).compile(policyLanguageSchema);
  expect(valid(res.body)).toBe(true);
  const mechanism = (res.body as { elements: Array<{ name: string; attributes: Array<{ name: string; required: boolean }> }> }).elements.find(
    (element) => element.name === 'mechanism',
  );
  expect(mechanism?.attributes).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'event', required: true })]));
});

test('the XSD needs no token, and every file it imports is served beside it, with the catalog', async () => {
  for (const [version, main, namespace] of [
    ['4.0', 'mydataLanguage.xsd', 'http://www.mydata-control.de/4.0/mydataLanguage'],
    ['3.2.46', 'ind2uceLanguage.xsd', 'http://www.iese.fraunhofer.de/ind2uce/3.2.46/ind2uceLanguage'],
  ] as const) {
    const res = await request(h.app).get(`/schema/${version}/${main}`);
    expect({ version, status: res.status }).toEqual({ version, status: 200 });
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    expect(res.text).toContain(`targetNamespace="${namespace}"`);
    const imports = [...res.text.matchAll(/schemaLocation="([^"]+)"/g)].map((match) => match[1] ?? '');
    expect(imports).toHaveLength(7);
    for (const file of imports) {
      const imported = await request(h.app).get(`/schema/${version}/${file}`);
      expect({ file, status: imported.status }).toEqual({ file, status: 200 });
      expect(imported.text).toContain(`schemaLocation="${main}"`);
    }
    const catalog = await request(h.app).get(`/schema/${version}/catalog.xml`);
    expect(catalog.status).toBe(200);
    expect(catalog.text).toContain(`<uri name="${namespace}" uri="${main}"/>`);
  }
});

test.each([
  ['/schema/4.0/nothing.xsd', 404, 'not_found'],
  ['/schema/4.0/policy.json', 400, 'invalid_request'],
  ['/schema/5.0/mydataLanguage.xsd', 400, 'invalid_request'],
  ['/schema/4.0/..%2fpackage.json', 400, 'invalid_request'],
])('%s answers %i with a problem', async (path, status, code) => {
  const res = await request(h.app).get(path);
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  expect(res.body.code).toBe(code);
});
