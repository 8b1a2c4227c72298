import { event, parameterValue, typed } from '../src/event-builder';

describe('event()', () => {
  it('types plain values as docs/api.md says', () => {
    const built = event('acme', 'show-employee', { name: 'Ann', count: 3, active: true, user: { id: 'u1' }, tags: ['a'], none: null }, { timestamp: 1763798400000 });
    expect(built).toEqual({
      actionId: { scope: 'acme', action: 'show-employee' },
      timestamp: 1763798400000,
      parameters: [
        { name: 'name', value: { value: 'Ann', type: 'java.lang.String', isComplex: false } },
        { name: 'count', value: { value: 3, type: 'java.lang.Double', isComplex: false } },
        { name: 'active', value: { value: true, type: 'java.lang.Boolean', isComplex: false } },
        { name: 'user', value: { value: { id: 'u1' }, type: 'java.lang.Object', isComplex: true } },
        { name: 'tags', value: { value: ['a'], type: 'java.util.ArrayList', isComplex: true } },
        { name: 'none', value: { value: null, type: 'java.lang.Object', isComplex: false } },
      ],
    });
  });

  it('takes explicit type names, and values from a Map in its order', () => {
    const built = event('acme', 'pay', new Map<string, unknown>([['amount', typed(1200, 'java.lang.Integer')], ['user', typed({ id: 'u1' }, 'com.acme.User')]]));
    expect(built.parameters).toEqual([
      { name: 'amount', value: { value: 1200, type: 'java.lang.Integer', isComplex: false } },
      { name: 'user', value: { value: { id: 'u1' }, type: 'com.acme.User', isComplex: true } },
    ]);
  });

  it('stamps the event with the current time by default', () => {
    const before = Date.now();
    const built = event('acme', 'x');
    expect(built.timestamp).toBeGreaterThanOrEqual(before);
    expect(built.parameters).toEqual([]);
  });

  it('copies values, so later changes to them do not reach the event', () => {
    const user = { name: { firstName: 'Ann' } };
    const built = event('acme', 'x', { user });
    user.name.firstName = 'Bob';
    expect(built.parameters[0]?.value.value).toEqual({ name: { firstName: 'Ann' } });
  });

  it.each([
    ['undefined', undefined, 'parameter `v` at `$`: undefined is not a JSON value'],
    ['a function', () => 1, 'parameter `v` at `$`: function is not a JSON value'],
    ['NaN', Number.NaN, 'parameter `v` at `$`: NaN is not a JSON number'],
    ['Infinity inside', { a: [Infinity] }, 'parameter `v` at `$["a"][0]`: Infinity is not a JSON number'],
    ['a Date', new Date(0), 'parameter `v` at `$`: only plain objects and arrays travel as JSON'],
    ['a bigint', BigInt(1), 'parameter `v` at `$`: bigint is not a JSON value'],
  ])('refuses %s', (_, value, message) => {
    expect(() => event('acme', 'x', { v: value })).toThrow(new TypeError(message));
  });

  it('refuses a value that contains itself and one nested deeper than the pdp accepts', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(() => event('acme', 'x', { v: cycle })).toThrow('parameter `v` at `$["self"]`: the value contains itself');
    let deep: unknown = 1;
    for (let i = 0; i < 65; i += 1) deep = [deep];
    expect(() => event('acme', 'x', { v: deep })).toThrow('nested deeper than 64 levels');
    let fine: unknown = 1;
    for (let i = 0; i < 64; i += 1) fine = [fine];
    expect(() => event('acme', 'x', { v: fine })).not.toThrow();
  });

  it('refuses a scope, action or type name the pdp would refuse', () => {
    expect(() => event('Acme', 'x')).toThrow('scope `Acme` must be lower case');
    expect(() => event('acme', 'show employee')).toThrow('action `show employee` must be');
    expect(() => typed(1, '')).toThrow('a type name must be a non-empty string');
    expect(() => event('acme', 'x', {}, { timestamp: 1.5 })).toThrow('whole number of milliseconds');
  });

  it('types a single value too', () => {
    expect(parameterValue(['a', 1])).toEqual({ value: ['a', 1], type: 'java.util.ArrayList', isComplex: true });
  });
});
