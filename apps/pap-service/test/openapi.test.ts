import Ajv from 'ajv';
import request from 'supertest';
import { componentSchema, interfaceSchema, pepInterfaceSchema, problemSchema } from '@custos/contracts';
import { documentedOperations, servedOperations } from '@custos/test-kit';
import { openapi } from '../src/openapi';
import { startHarness, type Harness } from './harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ natsState: () => 'connected' });
});
afterAll(async () => {
  await h?.close();
});

const pip = {
  id: { componentType: 'PIP', identifier: 'urn:component:acme:pip:hr' },
  urls: ['https://hr.example/pip'],
  componentInterfaces: [
    { type: 'InterfaceDescription', methodName: 'urn:info:acme:manager', returnType: 'java.lang.String', parameters: [{ name: 'user', type: 'java.lang.String', mandatory: true }] },
  ],
};

test('the document describes exactly the operations the app routes', () => {
  const served = servedOperations(h.app);
  expect(served).toEqual(expect.arrayContaining(['post /ws/component', 'get /ws/timer/{id}/revoke', 'post /ws/timer/{id}/revoke', 'get /docs']));
  expect(documentedOperations(openapi)).toEqual(served);
});

test('the document shows the schemas of the contract that validate components, not copies', () => {
  const schemas = openapi.components.schemas;
  expect(schemas.PepInterfaceDescription).toBe(pepInterfaceSchema);
  expect(schemas.InterfaceDescription).toBe(interfaceSchema);
  expect(schemas.Problem).toBe(problemSchema);
  // The envelope is the contract's, with only the interface items narrowed to the two shapes.
  const { componentInterfaces, ...envelope } = schemas.Component.properties;
  const { componentInterfaces: validated, ...validatedEnvelope } = componentSchema.properties;
  expect(envelope).toEqual(validatedEnvelope);
  for (const name of Object.keys(envelope) as Array<keyof typeof envelope>) expect(envelope[name]).toBe(validatedEnvelope[name]);
  expect(componentInterfaces.maxItems).toBe(validated.maxItems);
  expect(schemas.Component.required).toBe(componentSchema.required);
});

test('a component the document accepts is registered and comes back as the document describes it', async () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  const valid = ajv.compile({ ...openapi.components.schemas.Component, components: openapi.components });
  expect(valid(pip)).toBe(true);
  const registered = await request(h.app).post('/ws/component').set('Authorization', h.bearer()).send(pip);
  expect(registered.status).toBe(200);
  const shown = await request(h.app).get(`/ws/component/${pip.id.identifier}`).set('Authorization', h.bearer());
  expect(shown.status).toBe(200);
  expect(valid(shown.body)).toBe(true);

  // One the document rejects (an interface of the wrong shape for a PIP) is rejected by pap too.
  const wrongShape = { ...pip, componentInterfaces: [{ ...pip.componentInterfaces[0], preventive: true }] };
  expect(valid(wrongShape)).toBe(false);
  const rejected = await request(h.app).post('/ws/component').set('Authorization', h.bearer()).send(wrongShape);
  expect(rejected.status).toBe(400);
  expect(rejected.body.errors).toEqual([{ path: 'componentInterfaces[0].preventive', message: 'is not a known field' }]);
});
