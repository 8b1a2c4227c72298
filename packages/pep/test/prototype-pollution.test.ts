import type { Modifier } from '@custos/contracts';
import { applyModifiers } from '../src/apply-modifiers';
import { ModifierError, UnsupportedModifierError } from '../src/errors';
import { event } from '../src/event-builder';
import { modifier } from './servers';

/** Every own member of `target`: its key and what it holds (value, or getter for accessors). */
const members = (target: object) =>
  Reflect.ownKeys(target).map((key) => {
    const descriptor: PropertyDescriptor | undefined = Object.getOwnPropertyDescriptor(target, key);
    const held: unknown = descriptor === undefined ? undefined : Reflect.get(descriptor, 'get' in descriptor ? 'get' : 'value');
    return { key, held };
  });
const OBJECT_PROTOTYPE = members(Object.prototype);
const ARRAY_PROTOTYPE = members(Array.prototype);

function expectSameMembers(now: ReturnType<typeof members>, before: ReturnType<typeof members>): void {
  expect(now.map((member) => member.key)).toEqual(before.map((member) => member.key));
  now.forEach((member, index) => expect(member.held).toBe(before[index]?.held));
}

/** Nothing in these tests may leave a trace on the shared prototypes: no member added, none replaced. */
function expectPrototypesClean(): void {
  expectSameMembers(members(Object.prototype), OBJECT_PROTOTYPE);
  expectSameMembers(members(Array.prototype), ARRAY_PROTOTYPE);
  for (const key of ['polluted', 'isAdmin']) {
    expect(Object.prototype).not.toHaveProperty(key);
    expect(Array.prototype).not.toHaveProperty(key);
    expect(({} as Record<string, unknown>)[key]).toBeUndefined();
  }
}

const DANGEROUS = ['__proto__', 'constructor', 'prototype'];

describe('names that could reach a prototype', () => {
  afterEach(expectPrototypesClean);

  it('are plain parameter names in the event helper', () => {
    const values = JSON.parse('{"__proto__": {"polluted": 1}, "constructor": {"prototype": {"isAdmin": true}}, "prototype": 3}') as Record<string, unknown>;
    const built = event('acme', 'x', values);
    expect(built.parameters.map((p) => p.name)).toEqual(DANGEROUS);
    expect(built.parameters[0]?.value.value).toEqual(JSON.parse('{"polluted": 1}'));
    expect(Object.getPrototypeOf(built.parameters[0]?.value.value)).toBe(Object.prototype);
  });

  it('keep own `__proto__` keys inside values as data', () => {
    const built = event('acme', 'x', { user: JSON.parse('{"__proto__": {"isAdmin": true}}') });
    const value = built.parameters[0]?.value.value as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it.each(DANGEROUS)('as a modifier method `%s` are unknown', (method) => {
    const subject = event('acme', 'x', { v: 'a' });
    expect(() => applyModifiers(subject, [modifier('v', '$', method)] as Modifier[])).toThrow(UnsupportedModifierError);
  });

  it.each(DANGEROUS)('as a modifier parameter `%s` are refused', (name) => {
    const subject = event('acme', 'x', { v: 'a' });
    expect(() => applyModifiers(subject, [modifier('v', '$', 'append', { [name]: { polluted: 1 } })] as Modifier[])).toThrow(ModifierError);
  });

  it.each(DANGEROUS)('as the modified parameter `%s` touch that parameter only', (name) => {
    const subject = event('acme', 'x', JSON.parse(`{"${name}": {"a": "b"}}`) as Record<string, unknown>);
    applyModifiers(subject, [modifier(name, '$.polluted', 'replace', { replaceWith: 1 }), modifier(name, '$.a', 'append', { suffix: '!' })] as Modifier[]);
    expect(subject.parameters[0]?.value.value).toEqual({ a: 'b!' });
    const absent = event('acme', 'x', { v: 1 });
    applyModifiers(absent, [modifier(name, '$', 'replace', { replaceWith: { polluted: 1 } })] as Modifier[]);
    expect(absent.parameters).toEqual([{ name: 'v', value: { value: 1, type: 'java.lang.Double', isComplex: false } }]);
  });

  it.each([
    "$['__proto__'].polluted",
    '$.__proto__.polluted',
    '$.constructor.prototype.polluted',
    '$..polluted',
    '$.list.__proto__.polluted',
    '$.list.constructor.prototype.polluted',
    '$.__proto__.toString',
    "$['constructor']['prototype']['hasOwnProperty']",
    '$.list.__proto__.push',
    '$.__proto__',
    '$.constructor',
  ])('in a JSONPath (%s) select nothing inherited', (path) => {
    const subject = event('acme', 'x', { v: { list: [1] } });
    applyModifiers(subject, [modifier('v', path, 'replace', { replaceWith: 'yes' })] as Modifier[]);
    expect(subject.parameters[0]?.value.value).toEqual({ list: [1] });
  });

  it('in a JSONPath reach an own `__proto__` key, which stays an own key', () => {
    const subject = event('acme', 'x', { v: JSON.parse('{"__proto__": {"isAdmin": false}}') });
    applyModifiers(subject, [modifier('v', '$.__proto__.isAdmin', 'replace', { replaceWith: true }), modifier('v', "$['__proto__']['polluted']", 'replace', { replaceWith: 1 })] as Modifier[]);
    const value = subject.parameters[0]?.value.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(JSON.stringify(value)).toBe('{"__proto__":{"isAdmin":true}}');
  });

  it('replace an own `__proto__` key itself without changing the prototype', () => {
    const subject = event('acme', 'x', { v: JSON.parse('{"__proto__": "x"}') });
    applyModifiers(subject, [modifier('v', '$.__proto__', 'replace', { replaceWith: { isAdmin: true } })] as Modifier[]);
    const value = subject.parameters[0]?.value.value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(JSON.stringify(value)).toBe('{"__proto__":{"isAdmin":true}}');
    applyModifiers(subject, [modifier('v', '$.__proto__', 'delete')] as Modifier[]);
    expect(JSON.stringify(subject.parameters[0]?.value.value)).toBe('{}');
  });

  it('arrive in a replaceWith value as own keys', () => {
    const subject = event('acme', 'x', { v: { a: 1 } });
    const replaceWith = { value: '{"__proto__": {"polluted": 1}}', type: 'java.lang.Object', isComplex: true };
    const wire = { name: 'v', expression: '$.a', engine: [{ method: 'replace', parameters: [{ name: 'replaceWith', value: replaceWith }] }] };
    applyModifiers(subject, [wire] as Modifier[]);
    expect(JSON.stringify(subject.parameters[0]?.value.value)).toBe('{"a":{"__proto__":{"polluted":1}}}');
  });
});
