import type { JsonValue, ValueType } from '../../src/ast/value-types';
import { EvaluationFailure } from '../../src/functions/evaluation';
import { eventValue } from '../../src/functions/event-value';
import { readJsonPath } from '../../src/parse/json-path';
import { contextFor, event } from '../support/policies';

function evaluate(type: ValueType, parameters: Record<string, unknown>, defaultValue: JsonValue, path?: string) {
  const query = path === undefined ? null : readJsonPath(path);
  if (query !== null && !query.ok) throw new Error(query.problem);
  const evaluator = eventValue({
    type,
    parameter: 'p',
    defaultValue,
    path: query === null ? null : { text: path!, query: query.value },
  });
  const result = evaluator(contextFor(event(parameters)));
  return result instanceof EvaluationFailure ? `failure: ${result.message}` : result;
}

describe('event:T', () => {
  it('reads the parameter, or the default when it is missing or null', () => {
    expect(evaluate('string', { p: 'x' }, 'd')).toBe('x');
    expect(evaluate('string', {}, 'd')).toBe('d');
    expect(evaluate('string', { p: null }, 'd')).toBe('d');
    expect(evaluate('object', {}, { a: 1 })).toEqual({ a: 1 });
    expect(evaluate('list', {}, [1])).toEqual([1]);
  });

  it('accepts numeric strings as numbers and "true"/"false" as booleans', () => {
    expect(evaluate('number', { p: '42.5' }, 0)).toBe(42.5);
    expect(evaluate('number', { p: ' 7 ' }, 0)).toBe(7);
    expect(evaluate('boolean', { p: 'true' }, false)).toBe(true);
    expect(evaluate('boolean', { p: 'false' }, true)).toBe(false);
  });

  it('fails on a value of the wrong type, naming types but never the value', () => {
    expect(evaluate('number', { p: 'secret' }, 0)).toBe('failure: event parameter `p` is a string that is not a number');
    expect(evaluate('boolean', { p: 'TRUE' }, false)).toBe('failure: event parameter `p` is a string, expected a boolean');
    expect(evaluate('string', { p: 5 }, '')).toBe('failure: event parameter `p` is a number, expected a string');
    expect(evaluate('object', { p: [1] }, {})).toBe('failure: event parameter `p` is a list, expected an object');
    expect(evaluate('list', { p: { a: 1 } }, [])).toBe('failure: event parameter `p` is an object, expected a list');
  });

  it('reads inside the parameter with a path, with the default when the path selects nothing', () => {
    const user = { name: { first: 'Ann' }, age: '41', tags: ['a', 'b'] };
    expect(evaluate('string', { p: user }, '', '$.name.first')).toBe('Ann');
    expect(evaluate('string', { p: user }, 'none', "$['name']['last']")).toBe('none');
    expect(evaluate('number', { p: user }, 0, '$.age')).toBe(41);
    expect(evaluate('string', { p: user }, '', '$.tags[1]')).toBe('b');
    expect(evaluate('list', { p: user }, [], '$.tags')).toEqual(['a', 'b']);
    expect(evaluate('string', { p: { a: null } }, 'd', '$.a')).toBe('d');
  });

  it('fails when a path selects several values where one is needed', () => {
    expect(evaluate('string', { p: { xs: [{ n: 'a' }, { n: 'b' }] } }, '', '$.xs[*].n')).toBe(
      'failure: jsonPathQuery `$.xs[*].n` selected 2 values in event parameter `p` where one is needed',
    );
    expect(evaluate('string', { p: { xs: [{ n: 'a' }] } }, '', '$.xs[*].n')).toBe('a');
  });

  it('collects every selected value for event:list when the path can select several', () => {
    const data = { xs: [{ n: 'a' }, { n: 'b' }, { m: 'c' }], deep: { n: 'd' } };
    expect(evaluate('list', { p: data }, ['default'], '$.xs[*].n')).toEqual(['a', 'b']);
    // Descendant order is the library's; the set of values is what the language promises.
    expect([...(evaluate('list', { p: data }, ['default'], '$..n') as string[])].sort()).toEqual(['a', 'b', 'd']);
    expect(evaluate('list', { p: data }, ['default'], '$.none[*]')).toEqual([]);
    expect(evaluate('list', { p: data }, ['default'], '$.xs[?@.n == "b"].n')).toEqual(['b']);
  });

  it('never mutates or exposes a shared default', () => {
    const result = evaluate('object', {}, { a: { b: 1 } });
    expect(Object.isFrozen(result)).toBe(true);
    expect(Object.isFrozen((result as { a: object }).a)).toBe(true);
  });
});
