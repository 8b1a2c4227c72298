import { createHash } from 'node:crypto';
import type { Event, Modifier } from '@custos/contracts';
import { applyModifiers } from '../src/apply-modifiers';
import { JsonPathError, ModifierError, UnsupportedModifierError } from '../src/errors';
import { event } from '../src/event-builder';
import { JsonPathSyntaxError } from '../src/json-path';
import { modifier } from './servers';

/** The value of parameter `name` after applying `modifiers` to an event holding `values`. */
function modified(values: Record<string, unknown>, ...modifiers: unknown[]): Record<string, unknown> {
  const subject = event('acme', 'test', values);
  applyModifiers(subject, modifiers as Modifier[]);
  return Object.fromEntries(subject.parameters.map((p) => [p.name, p.value.value]));
}

const one = (value: unknown, expression: string, method: string, parameters: Record<string, unknown> = {}) =>
  modified({ v: value }, modifier('v', expression, method, parameters)).v;

function failure(value: unknown, expression: string, method: string, parameters: Record<string, unknown> = {}): Error {
  try {
    one(value, expression, method, parameters);
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the modifier to fail');
}

describe('delete', () => {
  it('removes a member, elements, and at `$` the whole parameter', () => {
    expect(one({ a: 1, b: 2 }, '$.a', 'delete')).toEqual({ b: 2 });
    expect(one(['x', 'y', 'z'], '$[0]', 'delete')).toEqual(['y', 'z']);
    expect(one(['x', 'y', 'z'], '$[0, 2]', 'delete')).toEqual(['y']);
    expect(one(['x', 'y', 'z'], '$[*]', 'delete')).toEqual([]);
    expect(one({ a: [{ s: 1, k: 2 }, { s: 3 }] }, '$.a[*].s', 'delete')).toEqual({ a: [{ k: 2 }, {}] });
    expect(modified({ v: 'secret', w: 1 }, modifier('v', '$', 'delete'))).toEqual({ w: 1 });
  });
});

describe('replace', () => {
  it('puts `replaceWith` in place, whatever its type', () => {
    expect(one({ a: 'x' }, '$.a', 'replace', { replaceWith: 'y' })).toEqual({ a: 'y' });
    expect(one({ a: 'x' }, '$.a', 'replace', { replaceWith: { b: [1] } })).toEqual({ a: { b: [1] } });
    expect(one({ a: 'x' }, '$.a', 'replace', { replaceWith: null })).toEqual({ a: null });
    expect(one(['a', 'b'], '$[*]', 'replace', { replaceWith: 0 })).toEqual([0, 0]);
  });

  it('gives each place its own copy', () => {
    const value = one([1, 2], '$[*]', 'replace', { replaceWith: { n: 0 } }) as Array<{ n: number }>;
    expect(value[0]).not.toBe(value[1]);
  });

  it('needs `replaceWith`', () => {
    expect(failure('x', '$', 'replace')).toBeInstanceOf(ModifierError);
  });
});

describe('append', () => {
  it('adds a prefix and a suffix to strings', () => {
    expect(one({ name: 'Ann' }, '$.name', 'append', { suffix: ' (masked)' })).toEqual({ name: 'Ann (masked)' });
    expect(one('Ann', '$', 'append', { prefix: 'Dr. ' })).toBe('Dr. Ann');
    expect(one('Ann', '$', 'append', { prefix: '<', suffix: '>' })).toBe('<Ann>');
  });

  it('refuses a value that is not a string', () => {
    const error = failure({ age: 42 }, '$.age', 'append', { suffix: '!' });
    expect(error).toBeInstanceOf(ModifierError);
    expect((error.cause as Error).message).toBe('`append` applies to strings, found a number at `$["age"]`');
  });
});

describe('hash', () => {
  it('gives the hex digest of a string, SHA-256 unless told otherwise', () => {
    expect(one('abc', '$', 'hash')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(one('abc', '$', 'hash', { algorithm: 'md5' })).toBe('900150983cd24fb0d6963f7d28e17f72');
    expect(one('abc', '$', 'hash', { algorithm: 'SHA-1' })).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
  });

  it('hashes other values as canonical JSON, so key order does not matter', () => {
    const canonical = createHash('sha256').update('{"a":1,"b":[true,null]}').digest('hex');
    expect(one({ b: [true, null], a: 1 }, '$', 'hash')).toBe(canonical);
    expect(one({ a: 1, b: [true, null] }, '$', 'hash')).toBe(canonical);
    expect(one(42, '$', 'hash')).toBe(createHash('sha256').update('42').digest('hex'));
  });

  it('refuses an unknown algorithm', () => {
    expect(failure('abc', '$', 'hash', { algorithm: 'rot13' })).toBeInstanceOf(ModifierError);
  });
});

describe('anagram', () => {
  const sorted = (text: string) => [...text].sort().join('');
  const moved = (a: string, b: string) => [...a].filter((char, i) => char !== [...b][i]).length;

  it('keeps the characters and shuffles at most the share it is told', () => {
    for (let i = 0; i < 20; i += 1) {
      const all = one('abcdefgh', '$', 'anagram') as string;
      expect(sorted(all)).toBe('abcdefgh');
      const half = one('abcdefgh', '$', 'anagram', { percentage: 50 }) as string;
      expect(sorted(half)).toBe('abcdefgh');
      expect(moved(half, 'abcdefgh')).toBeLessThanOrEqual(4);
    }
    expect(one('abcdefgh', '$', 'anagram', { percentage: 0 })).toBe('abcdefgh');
  });

  it('shuffles, over many runs', () => {
    const seen = new Set(Array.from({ length: 50 }, () => one('abcdefgh', '$', 'anagram')));
    expect(seen.size).toBeGreaterThan(1);
  });

  it('refuses a percentage outside 0 to 100', () => {
    expect(failure('abc', '$', 'anagram', { percentage: 150 })).toBeInstanceOf(ModifierError);
  });
});

describe('password', () => {
  it('masks every character, counting characters rather than UTF-16 units', () => {
    expect(one('secret', '$', 'password')).toBe('******');
    expect(one('a😀', '$', 'password')).toBe('**');
  });
});

describe('replaceSubstring', () => {
  it('replaces all, the first or the last occurrence of a literal', () => {
    expect(one('a-b-c', '$', 'replaceSubstring', { substring: '-', replacement: '+' })).toBe('a+b+c');
    expect(one('a-b-c', '$', 'replaceSubstring', { substring: '-', replacement: '+', mode: 'first' })).toBe('a+b-c');
    expect(one('a-b-c', '$', 'replaceSubstring', { substring: '-', replacement: '+', mode: 'LAST' })).toBe('a-b+c');
    expect(one('a-b-c', '$', 'replaceSubstring', { substring: '-' })).toBe('abc');
    expect(one('aaa', '$', 'replaceSubstring', { substring: 'aa', replacement: 'b' })).toBe('ba');
  });

  it('treats the substring literally, never as a pattern', () => {
    expect(one('a.c abc', '$', 'replaceSubstring', { substring: '.', replacement: '!' })).toBe('a!c abc');
  });

  it('refuses an empty substring and an unknown mode', () => {
    expect(failure('abc', '$', 'replaceSubstring', { substring: '' })).toBeInstanceOf(ModifierError);
    expect(failure('abc', '$', 'replaceSubstring', { substring: 'a', mode: 'SOME' })).toBeInstanceOf(ModifierError);
  });
});

describe('shorten', () => {
  it('keeps the first characters and marks the cut', () => {
    expect(one('Ann', '$', 'shorten')).toBe('A.');
    expect(one('Annabel', '$', 'shorten', { length: 3 })).toBe('Ann.');
    expect(one('Al', '$', 'shorten', { length: 3 })).toBe('Al');
    expect(one('A', '$', 'shorten')).toBe('A');
  });
});

describe('substring', () => {
  it('cuts by character indexes, negative from the end, clamped', () => {
    expect(one('Annabel', '$', 'substring', { startIndex: 0, endIndex: 3 })).toBe('Ann');
    expect(one('Annabel', '$', 'substring', { startIndex: 4 })).toBe('bel');
    expect(one('Annabel', '$', 'substring', { startIndex: -3 })).toBe('bel');
    expect(one('Annabel', '$', 'substring', { endIndex: 100 })).toBe('Annabel');
    expect(one('Annabel', '$', 'substring', { startIndex: 5, endIndex: 2 })).toBe('');
    expect(one('😀ab', '$', 'substring', { endIndex: 1 })).toBe('😀');
  });

  it('refuses an index that is not a whole number', () => {
    expect(failure('abc', '$', 'substring', { startIndex: 1.5 })).toBeInstanceOf(ModifierError);
  });
});

describe('add, multiply, divide', () => {
  it('compute with `operand`', () => {
    expect(one(41, '$', 'add', { operand: 1 })).toBe(42);
    expect(one(1200, '$', 'multiply', { operand: 0.5 })).toBe(600);
    expect(one(1200, '$', 'divide', { operand: 12 })).toBe(100);
    expect(one([1, 2], '$[*]', 'add', { operand: '10' })).toEqual([11, 12]);
  });

  it('refuse division by zero, results beyond doubles and values that are not numbers', () => {
    expect(failure(1, '$', 'divide', { operand: 0 })).toBeInstanceOf(ModifierError);
    expect(failure(1e308, '$', 'multiply', { operand: 10 })).toBeInstanceOf(ModifierError);
    expect(failure('12', '$', 'add', { operand: 1 })).toBeInstanceOf(ModifierError);
    expect(failure(12, '$', 'add')).toBeInstanceOf(ModifierError);
  });
});

describe('round', () => {
  it.each([
    [1234, { interval: 100 }, 1200],
    [1250, { interval: 100 }, 1300],
    [-1250, { interval: 100 }, -1300],
    [1250, { interval: 100, mode: 'HALF_DOWN' }, 1200],
    [1250, { interval: 100, mode: 'HALF_EVEN' }, 1200],
    [1350, { interval: 100, mode: 'HALF_EVEN' }, 1400],
    [1201, { interval: 100, mode: 'UP' }, 1300],
    [-1201, { interval: 100, mode: 'UP' }, -1300],
    [1299, { interval: 100, mode: 'DOWN' }, 1200],
    [-1299, { interval: 100, mode: 'DOWN' }, -1200],
    [-1250, { interval: 100, mode: 'CEILING' }, -1200],
    [-1250, { interval: 100, mode: 'FLOOR' }, -1300],
    [23, { interval: 10, offset: 5 }, 25],
    [19, { interval: 10, offset: 5, mode: 'floor' }, 15],
    [1.25, { interval: 0.1 }, 1.3],
    [1.23, { interval: 0.1 }, 1.2],
    [2.5, {}, 3],
    [-2.5, {}, -3],
    [-0.4, {}, 0],
  ])('rounds %p with %p to %p', (value, parameters, expected) => {
    expect(Object.is(one(value, '$', 'round', parameters), expected)).toBe(true);
  });

  it('refuses an interval of zero or less and an unknown mode', () => {
    expect(failure(1, '$', 'round', { interval: 0 })).toBeInstanceOf(ModifierError);
    expect(failure(1, '$', 'round', { mode: 'SIDEWAYS' })).toBeInstanceOf(ModifierError);
  });
});

describe('sign', () => {
  it('gives the signum, the absolute value or the negation', () => {
    expect(one([-7, 0, 3.5], '$[*]', 'sign')).toEqual([-1, 0, 1]);
    expect(one(-7, '$', 'sign', { mode: 'ABSOLUTE' })).toBe(7);
    expect(one(7, '$', 'sign', { mode: 'negate' })).toBe(-7);
    expect(Object.is(one(0, '$', 'sign', { mode: 'NEGATE' }), 0)).toBe(true);
  });
});

describe('applying several modifiers', () => {
  it('applies them in order, each on the result of the one before', () => {
    const first = modifier('v', '$', 'append', { suffix: 'xyz' });
    const second = modifier('v', '$', 'shorten', { length: 4 });
    expect(modified({ v: 'Ann' }, first, second).v).toBe('Annx.');
    expect(modified({ v: 'Ann' }, second, first).v).toBe('Annxyz');
  });

  it('modifies a complex value sent as JSON text and sends it back as JSON text', () => {
    const subject: Event = {
      actionId: { scope: 'acme', action: 'test' },
      timestamp: 1,
      parameters: [{ name: 'user', value: { value: '{"name":{"firstName":"Ann"},"id":"u1"}', type: 'com.acme.User', isComplex: true } }],
    };
    applyModifiers(subject, [modifier('user', '$.name.firstName', 'append', { suffix: ' (masked)' })] as Modifier[]);
    expect(subject.parameters[0]?.value).toEqual({ value: '{"name":{"firstName":"Ann (masked)"},"id":"u1"}', type: 'com.acme.User', isComplex: true });
  });

  it('leaves complex text that is not JSON a string, as the pdp does', () => {
    const subject: Event = {
      actionId: { scope: 'acme', action: 'test' },
      timestamp: 1,
      parameters: [{ name: 'note', value: { value: '{not json', type: 'com.acme.Note', isComplex: true } }],
    };
    applyModifiers(subject, [modifier('note', '$.name', 'delete'), modifier('note', '$', 'append', { suffix: '}' })] as Modifier[]);
    expect(subject.parameters[0]?.value).toEqual({ value: '{not json}', type: 'com.acme.Note', isComplex: true });
  });

  it('keeps the type name while the kind stays, and derives it when the kind changes', () => {
    const subject = event('acme', 'test', { user: { id: 'u1' }, amount: 3 });
    subject.parameters[0] = { name: 'user', value: { value: { id: 'u1' }, type: 'com.acme.User', isComplex: true } };
    applyModifiers(subject, [modifier('user', '$.id', 'append', { prefix: 'x' }), modifier('amount', '$', 'replace', { replaceWith: 'many' })] as Modifier[]);
    expect(subject.parameters).toEqual([
      { name: 'user', value: { value: { id: 'xu1' }, type: 'com.acme.User', isComplex: true } },
      { name: 'amount', value: { value: 'many', type: 'java.lang.String', isComplex: false } },
    ]);
    applyModifiers(subject, [modifier('user', '$', 'hash')] as Modifier[]);
    expect(subject.parameters[0]?.value.type).toBe('java.lang.String');
    expect(subject.parameters[0]?.value.isComplex).toBe(false);
  });

  it('changes nothing for a parameter the event does not carry or a path that selects nothing', () => {
    expect(modified({ v: { a: 1 } }, modifier('w', '$', 'delete'), modifier('v', '$.b', 'password'))).toEqual({ v: { a: 1 } });
  });

  it('changes nothing in an event that carries no parameters at all', () => {
    const bare = { actionId: { scope: 'acme', action: 'test' }, timestamp: 1 } as Event;
    applyModifiers(bare, [modifier('v', '$', 'delete')] as Modifier[]);
    expect(bare).toEqual({ actionId: { scope: 'acme', action: 'test' }, timestamp: 1 });
  });

  it('checks every modifier before applying the first', () => {
    const subject = event('acme', 'test', { v: 'Ann' });
    expect(() => applyModifiers(subject, [modifier('v', '$', 'password'), modifier('v', '$', 'rot13')] as Modifier[])).toThrow(UnsupportedModifierError);
    expect(subject.parameters[0]?.value.value).toBe('Ann');
  });

  it('names what went wrong with typed errors and causes', () => {
    const unknown = failure('x', '$', 'encrypt');
    expect(unknown).toBeInstanceOf(UnsupportedModifierError);
    expect((unknown as UnsupportedModifierError).method).toBe('encrypt');
    expect(unknown.cause).toBeInstanceOf(RangeError);

    const path = failure({ a: [1] }, '$.a[?@ > 0]', 'delete');
    expect(path).toBeInstanceOf(JsonPathError);
    expect(path.cause).toBeInstanceOf(JsonPathSyntaxError);

    const parameter = failure('x', '$', 'append', { sufix: '!' });
    expect(parameter).toBeInstanceOf(ModifierError);
    expect((parameter.cause as Error).message).toBe('`append` has no parameter `sufix` (it accepts `prefix`, `suffix`)');
    expect((parameter as ModifierError).context.index).toBe(0);
  });
});
