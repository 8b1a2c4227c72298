import request from 'supertest';
import type { Component } from '@custos/contracts';
import { useHarness, type Harness } from './harness';

/** What the component route tests share: a harness for the file, a component of each type, and registering one. */

/** Registers a harness started before the file's tests and closed after them; read `h` inside hooks and tests. */
export function useComponentApi(): { readonly h: Harness; readonly register: (body: unknown, auth?: string) => request.Test } {
  const h = useHarness();
  return {
    get h() {
      return h();
    },
    register: (body, auth = h().bearer()) => request(h().app).post('/ws/component').set('Authorization', auth).send(body as object),
  };
}

export const pip = (identifier = 'urn:component:acme:pip:hr', url = 'http://hr.acme.internal:9000/pip'): Component => ({
  id: { componentType: 'PIP', identifier },
  urls: [url],
  componentInterfaces: [
    {
      type: 'InterfaceDescription',
      methodName: `urn:info:${identifier.split(':')[2]}:getRole`,
      returnType: 'java.lang.String',
      description: 'role of a user',
      parameters: [{ name: 'userId', description: '', type: 'java.lang.String', mandatory: true }],
    },
  ],
});

export const pep = (identifier = 'urn:component:acme:pep:web'): Component => ({
  id: { componentType: 'PEP', identifier },
  urls: ['rmi://web.acme.internal:1099/pep'],
  componentInterfaces: [
    {
      type: 'PepInterfaceDescription',
      event: { platform: 'web', context: 'hr', action: 'urn:action:acme:show-employee' },
      preventive: true,
      methodName: 'showEmployee',
      returnType: 'void',
      description: 'shows an employee',
      parameters: [{ name: 'user', description: 'the user', type: 'com.acme.User' }],
    },
  ],
});

export const pxp = (identifier = 'urn:component:acme:pxp:mail'): Component => ({
  id: { componentType: 'PXP', identifier },
  urls: ['https://mail.acme.internal/pxp'],
  componentInterfaces: [
    {
      type: 'InterfaceDescription',
      methodName: 'urn:action:acme:send-mail',
      returnType: 'java.lang.Boolean',
      parameters: [{ name: 'to', type: 'java.lang.String' }],
    },
  ],
});
