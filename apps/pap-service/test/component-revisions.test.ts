import request from 'supertest';
import type { Component } from '@custos/contracts';
import { outbox, revision, startHarness, type Harness } from './harness';

/** PIP and PXP components reach the pdps with the deployed set: registering or removing one is a revisioned change. */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const pip = (url = 'http://hr.acme.internal/pip'): Component => ({
  id: { componentType: 'PIP', identifier: 'urn:component:acme:pip:hr' },
  urls: [url],
  componentInterfaces: [{ type: 'InterfaceDescription', methodName: 'urn:info:acme:role', returnType: 'java.lang.String', parameters: [] }],
});
const pep: Component = {
  id: { componentType: 'PEP', identifier: 'urn:component:acme:pep:web' },
  urls: ['http://web.acme.internal/pep'],
  componentInterfaces: [
    {
      type: 'PepInterfaceDescription',
      event: { platform: 'web', context: 'hr', action: 'show' },
      preventive: true,
      methodName: 'show',
      returnType: 'void',
      parameters: [],
    },
  ],
};
const register = (body: Component) => request(h.app).post('/ws/component').set('Authorization', h.bearer()).send(body);
const unregister = (id: string) => request(h.app).delete(`/ws/component/${id}`).set('Authorization', h.bearer());

test('a new or changed PIP gets a revision and an outbox `component` change; the same body again does not', async () => {
  const start = await revision(h.pool);
  const first = await register(pip());
  expect(first.body).toBe(true);
  expect(first.headers['policy-revision']).toBe(String(start + 1));
  expect((await outbox(h.pool)).at(-1)!.message).toEqual({ revision: start + 1, type: 'component', component: pip() });
  const same = await register(pip());
  expect(same.headers['policy-revision']).toBe(String(start + 1));
  const changed = await register(pip('http://hr2.acme.internal/pip'));
  expect(changed.headers['policy-revision']).toBe(String(start + 2));
  expect((await outbox(h.pool)).at(-1)!.message.component).toEqual(pip('http://hr2.acme.internal/pip'));
});

test('a PEP changes nothing the pdps use: no revision', async () => {
  const start = await revision(h.pool);
  const registered = await register(pep);
  expect(registered.body).toBe(true);
  expect(registered.headers['policy-revision']).toBe(String(start));
  expect((await unregister(pep.id.identifier)).headers['policy-revision']).toBe(String(start));
  expect(await revision(h.pool)).toBe(start);
});

test('removing a PIP is an `unregister` change; removing an unknown one is not', async () => {
  const start = await revision(h.pool);
  const removed = await unregister('urn:component:acme:pip:hr');
  expect(removed.body).toBe(true);
  expect(removed.headers['policy-revision']).toBe(String(start + 1));
  expect((await outbox(h.pool)).at(-1)!.message).toEqual({ revision: start + 1, type: 'unregister', componentId: 'urn:component:acme:pip:hr' });
  const again = await unregister('urn:component:acme:pip:hr');
  expect(again.body).toBe(false);
  expect(again.headers['policy-revision']).toBe(String(start + 1));
});
