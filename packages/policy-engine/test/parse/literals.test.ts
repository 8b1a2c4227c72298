import { readLiteral, readNumberText } from '../../src/parse/literals';

const value = (result: ReturnType<typeof readLiteral>) => (result.ok ? result.value : `problem: ${result.problem}`);

describe('readLiteral', () => {
  it('reads strings verbatim', () => {
    expect(value(readLiteral('string', ' a b '))).toBe(' a b ');
  });

  it.each([
    ['5', 5],
    ['-1.5', -1.5],
    [' 42 ', 42],
    ['1e3', 1000],
    ['.5', 0.5],
    ['+7', 7],
  ])('reads the number %j', (text, expected) => {
    expect(value(readLiteral('number', text))).toBe(expected);
  });

  it.each(['', 'abc', '0x10', '1,5', 'NaN', 'Infinity', '1e999', '5 5'])('refuses %j as a number', (text) => {
    const result = readNumberText(text);
    expect(result.ok).toBe(false);
  });

  it('reads booleans and refuses anything else', () => {
    expect(value(readLiteral('boolean', 'true'))).toBe(true);
    expect(value(readLiteral('boolean', 'false'))).toBe(false);
    expect(value(readLiteral('boolean', 'TRUE'))).toBe('problem: `TRUE` is not `true` or `false`');
    expect(value(readLiteral('boolean', 'yes'))).toBe('problem: `yes` is not `true` or `false`');
  });

  it('reads JSON objects only', () => {
    expect(value(readLiteral('object', '{"a": {"b": [1, 2]}}'))).toEqual({ a: { b: [1, 2] } });
    expect(value(readLiteral('object', '[1]'))).toBe('problem: `[1]` is not a json object');
    expect(value(readLiteral('object', 'null'))).toBe('problem: `null` is not a json object');
    expect(String(value(readLiteral('object', '{a: 1}')))).toMatch(/^problem: `\{a: 1\}` is not valid json \(/);
  });

  it('reads lists, with single-quoted strings and multi-digit numbers', () => {
    expect(value(readLiteral('list', '["a", 12, true]'))).toEqual(['a', 12, true]);
    expect(value(readLiteral('list', "['Ann', 'Bob', 123, 4567]"))).toEqual(['Ann', 'Bob', 123, 4567]);
    expect(value(readLiteral('list', `['it\\'s', 'say "hi"', "x'y"]`))).toEqual(["it's", 'say "hi"', "x'y"]);
    expect(value(readLiteral('list', "[{'k': 'v'}]"))).toEqual([{ k: 'v' }]);
    expect(value(readLiteral('list', '[]'))).toEqual([]);
  });

  it('refuses malformed lists', () => {
    expect(value(readLiteral('list', "['open"))).toBe("problem: `['open` has an unterminated string");
    expect(value(readLiteral('list', '{"a": 1}'))).toBe('problem: `{"a": 1}` is not a list');
    expect(readLiteral('list', '[1, 2').ok).toBe(false);
  });
});

describe('literal nesting', () => {
  it('accepts nesting up to 64 levels and refuses deeper literals instead of overflowing the stack later', () => {
    expect(readLiteral('list', `${'['.repeat(64)}${']'.repeat(64)}`).ok).toBe(true);
    expect(value(readLiteral('list', `${'['.repeat(65)}${']'.repeat(65)}`))).toMatch(/is nested deeper than 64 levels$/);
    const deep = `${'['.repeat(30_000)}${']'.repeat(30_000)}`;
    expect(readLiteral('list', deep).ok).toBe(false);
    expect(readLiteral('object', `{"a":${deep}}`).ok).toBe(false);
  });
});
