import {
  MAX_BATCH_ITEMS,
  MAX_EVENT_BYTES,
  MAX_REQUEST_VALUES,
  MAX_VALUE_DEPTH,
  WorkBudget,
  parseAuthZenRequest,
  parseEvent,
  parseEventBatch,
  utf8Length,
  walkJson,
  type ProblemError,
  type ShapeCheck,
} from '@custos/contracts';

/** A stand-in for the services' ajv check of `eventSchema`: the timestamp must be a number. */
const shape: ShapeCheck = (value) => {
  const errors: ProblemError[] = [];
  if (typeof value !== 'object' || value === null) return [{ path: '(body)', message: 'must be of type object' }];
  if (typeof (value as { timestamp?: unknown }).timestamp !== 'number') errors.push({ path: 'timestamp', message: 'must be of type integer' });
  return errors;
};
const anyShape: ShapeCheck = () => [];

const event = (parameters: Array<{ name: string; value: unknown; isComplex?: boolean }> = []) => ({
  actionId: { scope: 'acme', action: 'show' },
  timestamp: 1,
  parameters: parameters.map(({ name, value, isComplex }) => ({ name, value: { value, type: 'x', isComplex: isComplex ?? typeof value === 'object' } })),
});
const nested = (depth: number): unknown => {
  let value: unknown = 0;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
};
const bytesOf = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

describe('walkJson', () => {
  it('measures the compact JSON size in UTF-8 of values without escapes exactly', () => {
    const values: unknown[] = [
      0,
      -12,
      3.25,
      1e21,
      true,
      false,
      null,
      '',
      'plain',
      'zwölf Äpfel',
      '日本語',
      '😀 emoji',
      [],
      {},
      [1, 'a', [true, null], { b: [] }],
      { name: 'Ann', tags: ['x', 'y'], nested: { deeper: { list: [1, 2, 3] } }, 'schlüssel': 'wert' },
    ];
    for (const value of values) expect({ value, bytes: walkJson(value, { budget: new WorkBudget(), maxBytes: 1e9 }).bytes }).toEqual({ value, bytes: bytesOf(value) });
  });

  it('counts UTF-8 bytes of a string', () => {
    expect(utf8Length('abc')).toBe(3);
    expect(utf8Length('ä')).toBe(2);
    expect(utf8Length('€')).toBe(3);
    expect(utf8Length('😀')).toBe(4);
  });

  it('stops at the size, the depth or the budget, whichever comes first', () => {
    const wide = Array.from({ length: 10_000 }, (_, i) => `value-${i}`);
    const large = walkJson(wide, { budget: new WorkBudget(), maxBytes: 1000 });
    expect(large.tooLarge).toBe(true);
    expect(walkJson(nested(MAX_VALUE_DEPTH), { budget: new WorkBudget(), maxDepth: MAX_VALUE_DEPTH }).tooDeep).toBe(false);
    expect(walkJson(nested(MAX_VALUE_DEPTH + 1), { budget: new WorkBudget(), maxDepth: MAX_VALUE_DEPTH }).tooDeep).toBe(true);
    const budget = new WorkBudget(5000);
    expect(walkJson(wide, { budget }).exhausted).toBe(true);
    expect(budget.exhausted).toBe(true);
    const enough = new WorkBudget(20_000);
    expect(walkJson(wide, { budget: enough }).exhausted).toBe(false);
    expect(enough.spent).toBe(10_001);
  });

  it('walks a nesting far deeper than the stack allows without overflowing', () => {
    expect(walkJson(nested(200_000), { budget: new WorkBudget(), maxDepth: 300_000 }).tooDeep).toBe(false);
  });
});

describe('parseEvent', () => {
  it('makes the engine event of a valid event, decoding complex JSON text', () => {
    const parsed = parseEvent(event([{ name: 'user', value: '{"id":"u1"}', isComplex: true }, { name: 'n', value: 2 }]), { shape, budget: new WorkBudget() });
    expect(parsed).toEqual({
      ok: true,
      value: { event: { action: 'urn:action:acme:show', timestamp: 1, parameters: new Map<string, unknown>([['user', { id: 'u1' }], ['n', 2]]) }, action: { urn: 'urn:action:acme:show', solution: 'acme' } },
    });
  });

  it('refuses in the order size, schema, names, action, depth, each located inside the item', () => {
    const at = 'events[3]';
    const big = event([{ name: 'blob', value: 'x'.repeat(MAX_EVENT_BYTES) }]);
    expect(parseEvent(big, { shape, budget: new WorkBudget(), measure: true, at })).toMatchObject({
      ok: false,
      status: 413,
      errors: [{ path: 'events[3]', message: `is larger than ${MAX_EVENT_BYTES} bytes, the limit of one event` }],
    });
    // Unmeasured (the body of POST /event was bounded when read), the same event is looked at no further for size.
    expect(parseEvent(big, { shape, budget: new WorkBudget() }).ok).toBe(true);
    expect(parseEvent({ ...big, timestamp: 'x' }, { shape, budget: new WorkBudget(), measure: true, at })).toMatchObject({ status: 413 });
    expect(parseEvent({ ...event(), timestamp: 'x' }, { shape, budget: new WorkBudget(), at })).toMatchObject({
      status: 400,
      errors: [{ path: 'events[3].timestamp', message: 'must be of type integer' }],
    });
    expect(parseEvent(event([{ name: 'a', value: 1 }, { name: 'a', value: 2 }]), { shape, budget: new WorkBudget(), at })).toMatchObject({
      status: 400,
      detail: 'parameter names must be unique',
      errors: [{ path: 'events[3].parameters[1].name' }],
    });
    expect(parseEvent({ ...event(), actionId: { urn: 'urn:policy:acme:x' } }, { shape, budget: new WorkBudget(), at })).toMatchObject({
      status: 400,
      errors: [{ path: 'events[3].actionId', message: 'names no valid action' }],
    });
    const deep = event([{ name: 'ok', value: 1 }, { name: 'deep', value: JSON.stringify(nested(MAX_VALUE_DEPTH + 1)), isComplex: true }]);
    expect(parseEvent(deep, { shape, budget: new WorkBudget() })).toMatchObject({
      status: 400,
      errors: [{ path: 'parameters[1].value.value', message: `is nested deeper than ${MAX_VALUE_DEPTH} levels` }],
    });
  });

  it('charges decoded complex text to the budget: past it, a 413 saying so', () => {
    const values = JSON.stringify(Array.from({ length: 3000 }, () => 0));
    const parsed = parseEvent(event([{ name: 'a', value: values, isComplex: true }]), { shape, budget: new WorkBudget(2000) });
    expect(parsed).toMatchObject({ ok: false, status: 413, errors: [{ path: '(body)' }] });
  });
});

describe('parseEventBatch', () => {
  it('refuses more items than a batch carries before looking at any', () => {
    const events = Array.from({ length: MAX_BATCH_ITEMS + 1 }, () => 'not even an event');
    expect(parseEventBatch({ events }, { shape, budget: new WorkBudget() })).toMatchObject({ status: 413, errors: [{ path: 'events' }] });
  });

  it('refuses an item larger than one event may be with 413 naming it, as POST /event would', () => {
    const events = [event(), event(), event(), event([{ name: 'blob', value: 'x'.repeat(3 * MAX_EVENT_BYTES) }]), { ...event(), timestamp: 'x' }];
    expect(parseEventBatch({ events }, { shape, budget: new WorkBudget() })).toEqual({
      ok: false,
      status: 413,
      detail: 'an event of the batch is larger than one event may be; nothing was decided',
      errors: [{ path: 'events[3]', message: `is larger than ${MAX_EVENT_BYTES} bytes, the limit of one event` }],
    });
  });

  it('lists the problems of every event in one 400 and says what is wrong with the body itself', () => {
    const events = [{ ...event(), timestamp: 'x' }, event([{ name: 'a', value: 1 }, { name: 'a', value: 1 }]), event()];
    const parsed = parseEventBatch({ events }, { shape, budget: new WorkBudget() });
    expect(parsed).toMatchObject({ status: 400, errors: [{ path: 'events[0].timestamp' }, { path: 'events[1].parameters[1].name' }] });
    expect(parseEventBatch({}, { shape, budget: new WorkBudget() })).toMatchObject({ status: 400, errors: [{ path: 'events', message: 'is required' }] });
    expect(parseEventBatch({ events: {} }, { shape, budget: new WorkBudget() })).toMatchObject({ status: 400, errors: [{ path: 'events', message: 'must be of type array' }] });
    expect(parseEventBatch([], { shape, budget: new WorkBudget() })).toMatchObject({ status: 400, errors: [{ path: '(body)' }] });
    expect(parseEventBatch({ events: [] }, { shape, budget: new WorkBudget() })).toEqual({ ok: true, value: [] });
  });

  it('shares one budget over all items: 100 events of 20,000 values each exceed it', () => {
    const wide = Array.from({ length: 20_000 }, () => 0);
    const events = Array.from({ length: 100 }, () => event([{ name: 'v', value: wide }]));
    const parsed = parseEventBatch({ events }, { shape, budget: new WorkBudget() });
    expect(parsed).toMatchObject({ ok: false, status: 413, detail: expect.stringContaining(`more than ${MAX_REQUEST_VALUES}`) });
  });
});

describe('parseAuthZenRequest', () => {
  const alice = { type: 'user', id: 'alice' };
  const doc = (id: string) => ({ type: 'document', id });
  const options = { shape: anyShape, single: false, solutions: ['acme'], timestamp: 5 };

  it('walks a shared default once, not once per evaluation', () => {
    const context = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i]));
    const evaluations = Array.from({ length: 100 }, (_, i) => ({ resource: doc(String(i)) }));
    const budget = new WorkBudget();
    const parsed = parseAuthZenRequest({ subject: alice, action: { name: 'read' }, context, evaluations }, { ...options, budget });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value.events).toHaveLength(100);
    // Every evaluation holds the same default object, not a copy.
    expect(parsed.value.events[99]?.event.parameters.get('context')).toBe(context);
    // 50,001 values of the context, a few per entity: far from 100 × 50,000.
    expect(budget.spent).toBeLessThan(52_000);
  });

  it('refuses a default larger than one evaluation may be at its path, and an entry that is with the defaults it takes at the entry', () => {
    const huge = { blob: 'x'.repeat(MAX_EVENT_BYTES + 10) };
    expect(parseAuthZenRequest({ subject: alice, action: { name: 'read' }, context: huge, evaluations: [{ resource: doc('1') }] }, { ...options, budget: new WorkBudget() })).toMatchObject({
      status: 413,
      errors: [{ path: 'context' }],
    });
    const half = { blob: 'x'.repeat(MAX_EVENT_BYTES / 2 + 10) };
    const parsed = parseAuthZenRequest(
      { subject: alice, action: { name: 'read' }, context: half, evaluations: [{ resource: doc('1') }, { resource: { ...doc('2'), properties: half } }, { resource: doc('3'), context: {} }] },
      { ...options, budget: new WorkBudget() },
    );
    expect(parsed).toMatchObject({ status: 413, errors: [{ path: 'evaluations[1]', message: expect.stringContaining('with the defaults it takes') }] });
    expect(parseAuthZenRequest({ subject: alice, action: { name: 'read' }, evaluations: [{ resource: doc('1') }, { resource: doc('2'), context: huge }] }, { ...options, budget: new WorkBudget() })).toMatchObject({
      status: 413,
      errors: [{ path: 'evaluations[1].context' }],
    });
  });

  it('locates nesting, missing entities and action names, and answers one evaluation for /evaluation', () => {
    const deep = { d: nested(MAX_VALUE_DEPTH) };
    expect(parseAuthZenRequest({ subject: alice, action: { name: 'read' }, evaluations: [{ resource: doc('1') }, { resource: doc('2'), context: deep }] }, { ...options, budget: new WorkBudget() })).toMatchObject({
      status: 400,
      errors: [{ path: 'evaluations[1].context', message: `is nested deeper than ${MAX_VALUE_DEPTH} levels` }],
    });
    expect(parseAuthZenRequest({ action: { name: 'read' }, evaluations: [{ resource: doc('1') }] }, { ...options, budget: new WorkBudget() })).toMatchObject({
      status: 400,
      errors: [{ path: 'evaluations[0].subject' }],
    });
    expect(parseAuthZenRequest({ subject: alice, action: { name: 'no way' }, evaluations: [{ resource: doc('1') }] }, { ...options, budget: new WorkBudget() })).toMatchObject({
      status: 400,
      errors: [{ path: 'evaluations[0].action.name' }],
    });
    const single = parseAuthZenRequest({ subject: alice, action: { name: 'read' }, resource: doc('1'), evaluations: 'ignored here' }, { ...options, single: true, budget: new WorkBudget() });
    expect(single).toMatchObject({ ok: true, value: { single: true, events: [{ action: { urn: 'urn:action:acme:read' } }] } });
  });

  it('refuses more evaluations than a batch carries, and reports the schema problems it is given', () => {
    const evaluations = Array.from({ length: MAX_BATCH_ITEMS + 1 }, () => ({}));
    expect(parseAuthZenRequest({ evaluations }, { ...options, budget: new WorkBudget() })).toMatchObject({ status: 413, errors: [{ path: 'evaluations' }] });
    const failing: ShapeCheck = () => [{ path: 'subject.id', message: 'is required' }];
    expect(parseAuthZenRequest({}, { ...options, shape: failing, budget: new WorkBudget() })).toEqual({
      ok: false,
      status: 400,
      detail: 'the access evaluations request does not match the schema',
      errors: [{ path: 'subject.id', message: 'is required' }],
    });
  });
});
