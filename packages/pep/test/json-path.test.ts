import { JsonPathSyntaxError, parseJsonPath, select } from '../src/json-path';

const values = (root: unknown, path: string) => select(root, parseJsonPath(path)).map((location) => location.value);
const paths = (root: unknown, path: string) => select(root, parseJsonPath(path)).map((location) => location.path);

describe('the JSONPath subset', () => {
  const user = {
    id: 'u1',
    name: { firstName: 'Ann', lastName: 'Lee' },
    roles: ['admin', 'hr', 'audit'],
    children: [{ name: { firstName: 'Bo' } }, { name: { firstName: 'Cy' } }],
    'odd key': 1,
  };

  it('selects the root with `$`', () => {
    expect(values(user, '$')).toEqual([user]);
  });

  it('follows member names in dot and bracket notation', () => {
    expect(values(user, '$.name.firstName')).toEqual(['Ann']);
    expect(values(user, "$['name']['lastName']")).toEqual(['Lee']);
    expect(values(user, '$["odd key"]')).toEqual([1]);
    expect(values(user, "$[ 'name' ] [ 'firstName' ]")).toEqual(['Ann']);
  });

  it('reads escapes in quoted names', () => {
    expect(values({ "it's": 1, 'a\nb': 2, é: 3 }, "$['it\\'s']")).toEqual([1]);
    expect(values({ 'a\nb': 2 }, "$['a\\nb']")).toEqual([2]);
    expect(values({ é: 3 }, "$['\\u00e9']")).toEqual([3]);
    expect(values({ é: 3 }, '$.é')).toEqual([3]);
  });

  it('takes indexes, negative ones from the end, and nothing out of range', () => {
    expect(values(user, '$.roles[0]')).toEqual(['admin']);
    expect(values(user, '$.roles[-1]')).toEqual(['audit']);
    expect(values(user, '$.roles[3]')).toEqual([]);
    expect(values(user, '$.roles[-4]')).toEqual([]);
  });

  it('expands wildcards over lists and objects, in order', () => {
    expect(values(user, '$.roles[*]')).toEqual(['admin', 'hr', 'audit']);
    expect(values(user, '$.name.*')).toEqual(['Ann', 'Lee']);
    expect(values(user, '$.children[*].name.firstName')).toEqual(['Bo', 'Cy']);
  });

  it('takes unions of names and indexes', () => {
    expect(values(user, "$.name['lastName', 'firstName']")).toEqual(['Lee', 'Ann']);
    expect(values(user, '$.roles[2, 0]')).toEqual(['audit', 'admin']);
  });

  it('finds descendants with `..`, parents before children', () => {
    expect(values(user, '$..firstName')).toEqual(['Ann', 'Bo', 'Cy']);
    expect(paths(user, '$..firstName')).toEqual([
      '$["name"]["firstName"]',
      '$["children"][0]["name"]["firstName"]',
      '$["children"][1]["name"]["firstName"]',
    ]);
    expect(values({ a: { a: 1 } }, '$..a')).toEqual([{ a: 1 }, 1]);
    expect(values([[1], 2], '$..[0]')).toEqual([[1], 1]);
    expect(values({ a: [1] }, '$..*')).toEqual([[1], 1]);
  });

  it('selects nothing where the value has no such member, index or container', () => {
    expect(values(user, '$.missing')).toEqual([]);
    expect(values(user, '$.id.length')).toEqual([]);
    expect(values(user, '$.roles.length')).toEqual([]);
    expect(values(user, '$.name[0]')).toEqual([]);
    expect(values('text', '$[0]')).toEqual([]);
  });

  it('never walks into inherited properties', () => {
    expect(values({}, '$.constructor')).toEqual([]);
    expect(values({}, '$.__proto__')).toEqual([]);
    expect(values({}, "$['__proto__'].polluted")).toEqual([]);
    expect(values({}, '$.toString')).toEqual([]);
    expect(values([], '$.length')).toEqual([]);
  });

  it('sees an own `__proto__` key (as JSON.parse makes it) as plain data', () => {
    const parsed: unknown = JSON.parse('{"__proto__": {"x": 1}}');
    expect(values(parsed, '$.__proto__.x')).toEqual([1]);
  });

  it.each([
    ['', 'a path must start with `$`'],
    ['name', 'a path must start with `$`'],
    ['$.', 'expected a member name'],
    ['$.1a', 'expected a member name'],
    ['$[?@.a == 1]', 'filter selectors are not supported'],
    ['$[0:2]', 'slice selectors are not supported'],
    ['$[:2]', 'expected a name, an index or `*`'],
    ['$.a.length()', 'unexpected `(`'],
    ['$[01]', 'expected `,` or `]`'],
    ['$[-0]', 'expected an index'],
    ["$['a'", 'expected `,` or `]`'],
    ["$['a", 'unterminated string'],
    ["$['\\x']", 'bad escape'],
    ['$[99999999999999999999]', 'index out of range'],
    ['$ $', 'unexpected `$`'],
  ])('refuses `%s` (%s)', (path, message) => {
    expect(() => parseJsonPath(path)).toThrow(JsonPathSyntaxError);
    expect(() => parseJsonPath(path)).toThrow(message);
  });

  it('refuses paths longer than 4096 characters', () => {
    expect(() => parseJsonPath(`$${'.a'.repeat(2048)}`)).toThrow('path longer than 4096 characters');
  });

  it('walks a deeply nested value without recursion', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 20_000; i += 1) deep = { a: deep };
    expect(values(deep, '$..a').at(-1)).toBe('bottom');
  });
});
