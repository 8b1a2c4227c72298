import type { PepInterfaceDescription } from '@custos/contracts';
import { actionIdOf, buildEvent, fieldsForInterface, parameterOf } from '../src/web/logic/event';

describe('parameterOf', () => {
  test('JSON objects and arrays are complex values, typed from the interface when it says', () => {
    expect(parameterOf({ name: 'user', type: 'com.acme.User', text: '{ "name": { "firstName": "Ann" } }' })).toEqual({
      name: 'user',
      value: { value: { name: { firstName: 'Ann' } }, type: 'com.acme.User', isComplex: true },
    });
    expect(parameterOf({ name: 'ids', type: '', text: '[1, 2]' }).value).toEqual({ value: [1, 2], type: 'java.util.ArrayList', isComplex: true });
  });

  test('numbers and booleans keep their JSON type; text that is not JSON is a plain string', () => {
    expect(parameterOf({ name: 'n', type: '', text: '42' }).value).toEqual({ value: 42, type: 'java.lang.Double', isComplex: false });
    expect(parameterOf({ name: 'b', type: '', text: 'true' }).value).toEqual({ value: true, type: 'java.lang.Boolean', isComplex: false });
    expect(parameterOf({ name: 's', type: '', text: 'Ann Smith' }).value).toEqual({ value: 'Ann Smith', type: 'java.lang.String', isComplex: false });
    expect(parameterOf({ name: 'q', type: '', text: '"42"' }).value).toEqual({ value: '42', type: 'java.lang.String', isComplex: false });
  });

  test('null is a value, not a complex one', () => {
    expect(parameterOf({ name: 'x', type: '', text: 'null' }).value.isComplex).toBe(false);
  });
});

test('action URNs split into scope and action; anything else is refused', () => {
  expect(actionIdOf(' urn:action:acme:show-employee ')).toEqual({ scope: 'acme', action: 'show-employee' });
  expect(actionIdOf('urn:policy:acme:x')).toBeUndefined();
  expect(actionIdOf('urn:action:ACME:x')).toBeUndefined();
});

test('an event carries the named fields only, with the given timestamp', () => {
  const event = buildEvent('urn:action:acme:show', [
    { name: 'a', type: '', text: '1' },
    { name: '  ', type: '', text: 'ignored' },
  ], 1763798400000);
  expect(event).toEqual({
    actionId: { scope: 'acme', action: 'show' },
    timestamp: 1763798400000,
    parameters: [{ name: 'a', value: { value: 1, type: 'java.lang.Double', isComplex: false } }],
  });
  expect(() => buildEvent('show', [], 0)).toThrow('`show` is not an action');
});

test('a PEP interface gives the action and one empty field per parameter', () => {
  const description: PepInterfaceDescription = {
    type: 'PepInterfaceDescription',
    event: { platform: 'web', context: 'hr', action: 'show-employee' },
    preventive: true,
    methodName: 'urn:action:acme:show-employee',
    returnType: 'void',
    parameters: [{ name: 'user', type: 'com.acme.User', description: 'the employee' }],
  };
  expect(fieldsForInterface(description)).toEqual({ action: 'urn:action:acme:show-employee', fields: [{ name: 'user', type: 'com.acme.User', text: '' }] });
});
