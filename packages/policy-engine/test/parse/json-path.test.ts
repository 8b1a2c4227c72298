import { readJsonPath } from '../../src/parse/json-path';

function compile(text: string) {
  const result = readJsonPath(text);
  if (!result.ok) throw new Error(result.problem);
  return result.value;
}

describe('readJsonPath', () => {
  it.each(['$', '$.a.b', "$['a']", '$.list[0]', '$.list[*].x', '$..x', '$.list[?@.n > 1]'])('compiles %s', (text) => {
    expect(readJsonPath(text).ok).toBe(true);
  });

  it.each(['', 'a.b', '$.', '$[', '$.list[?(@.n > 1)]x', '$.a[?foo(@)]'])('refuses %j with a message naming it', (text) => {
    const result = readJsonPath(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problem.startsWith(`\`${text}\` is not a valid jsonpath (`)).toBe(true);
  });

  it('tells singular paths from paths that can select several nodes', () => {
    expect(compile('$.a.b').singularQuery()).toBe(true);
    expect(compile('$.a[*]').singularQuery()).toBe(false);
  });

  it('evaluates match() and search() with linear-time regular expressions', () => {
    const data = { items: [{ name: 'abc' }, { name: 'xabcx' }, { name: `${'a'.repeat(5000)}!` }] };
    expect(compile("$.items[?match(@.name, 'abc')].name").query(data).values()).toEqual(['abc']);
    expect(compile("$.items[?search(@.name, 'abc')].name").query(data).values()).toEqual(['abc', 'xabcx']);
    // Catastrophic for a backtracking engine (2^5000 ways to split the a's: it would not finish within the test's
    // timeout); RE2 answers in linear time, so reaching the assertion is the point.
    expect(compile("$.items[?match(@.name, '(a+)+$')]").query(data).values()).toEqual([]);
  });
});
