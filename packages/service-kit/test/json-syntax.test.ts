import { HttpProblem, jsonErrorOffset, parseJson } from '@custos/service-kit';

describe('jsonErrorOffset', () => {
  it.each([
    '{}',
    '[]',
    ' {"a": [1, -2.5e+3, true, false, null, "x\\u00e9\\n"], "b": {"c": {}}} ',
    '"text"',
    '0',
    '-0.5E2',
  ])('finds nothing wrong in %j', (text) => {
    expect(() => JSON.parse(text)).not.toThrow();
    expect(jsonErrorOffset(text)).toBeUndefined();
  });

  it.each([
    ['{"a": ,}', 6],
    ['{"a": 1,}', 8],
    ['{"a" 1}', 5],
    ['{a: 1}', 1],
    ['[1, 2', 5],
    ['[01]', 2],
    ['{"a": tru}', 6 + 3],
    ['{"a": "x\\q"}', 8],
    ['{"a": "x\ny"}', 8],
    ['{} {}', 3],
    ['-', 0],
    ['{"a": 1} x', 9],
  ])('locates the error in %j at %i', (text, offset) => {
    expect(() => JSON.parse(text)).toThrow();
    expect(jsonErrorOffset(text)).toBe(offset);
  });
});

describe('parseJson', () => {
  it('adds line and column where the runtime gives no position', () => {
    let problem: unknown;
    try {
      parseJson('{\n  "a": 1,\n  "b": ,\n}');
    } catch (error) {
      problem = error;
    }
    expect(problem).toBeInstanceOf(HttpProblem);
    expect((problem as HttpProblem).status).toBe(400);
    expect((problem as HttpProblem).code).toBe('malformed_json');
    expect((problem as HttpProblem).errors?.[0]).toMatchObject({ line: 3, column: 8 });
  });

  it('parses valid JSON', () => {
    expect(parseJson('{"a":[1]}')).toEqual({ a: [1] });
  });
});
