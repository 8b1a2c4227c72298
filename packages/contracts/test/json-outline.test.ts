import { MAX_EVENT_BYTES, MAX_REQUEST_VALUES, outlineJson, prescanAuthZen, prescanEventBatch } from '@custos/contracts';

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value)).length;

describe('outlineJson', () => {
  it('sizes the values the limits are about exactly as their UTF-8 text, and counts every value', () => {
    const body = {
      context: { city: 'Zürich', note: '€ 😀 "quoted" \\ back\nslash', list: [1, 2.5, -3e-7, true, false, null] },
      evaluations: [{ resource: { id: 'r1' } }, { subject: { id: 'ä' }, context: {} }, 'odd', []],
      'escaped\u00e9key': 1,
    };
    const outline = outlineJson(JSON.stringify(body), MAX_REQUEST_VALUES);
    if (outline === undefined || outline === 'budget') throw new Error('no outline');
    expect(outline.members).toEqual(
      new Map<string, number>([
        ['context', bytes(body.context)],
        ['evaluations', bytes(body.evaluations)],
        ['escaped\u00e9key', 1],
      ]),
    );
    expect(outline.items.get('evaluations')).toEqual([
      { bytes: bytes(body.evaluations[0]), members: new Map([['resource', bytes({ id: 'r1' })]]) },
      { bytes: bytes(body.evaluations[1]), members: new Map<string, number>([['subject', bytes({ id: 'ä' })], ['context', 2]]) },
      { bytes: 5, members: new Map() },
      { bytes: 2, members: new Map() },
    ]);
    expect(outline.items.get('context')).toBeUndefined();
    // root, context, its 3 members and 6 list items, evaluations, 4 items, resource, id, subject, id, context, the key of 1
    expect(outline.values).toBe(1 + 1 + 3 + 6 + 1 + 4 + 2 + 2 + 1 + 1);
  });

  it('takes whitespace and escapes as sent', () => {
    const text = '{ "events" : [ {"a": "\\u0041"} ,\n {} ] }';
    const outline = outlineJson(text, 100);
    if (outline === undefined || outline === 'budget') throw new Error('no outline');
    expect(outline.items.get('events')?.map((item) => item.bytes)).toEqual(['{"a": "\\u0041"}'.length, 2]);
    expect(outline.members.get('events')).toBe('[ {"a": "\\u0041"} ,\n {} ]'.length);
  });

  it('stops at the value budget and at text that is not JSON, and nests without a stack', () => {
    expect(outlineJson(JSON.stringify(Array.from({ length: 100 }, () => 0)), 50)).toBe('budget');
    for (const text of ['{"a":}', '[1,2', '{"a" 1}', '{"a":"x', '', '[1] 2', '{1:2}']) expect(outlineJson(text, 100)).toBeUndefined();
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(outlineJson(deep, 1_000_000)).toMatchObject({ values: 200_000 });
  });
});

describe('prescans before parsing', () => {
  const event = (extra: Record<string, unknown> = {}) => ({ actionId: { scope: 'acme', action: 'show' }, timestamp: 1, parameters: [], ...extra });

  it('refuse a batch holding an event larger than one event may be, naming it, and leave the rest to the parser', () => {
    const huge = event({ blob: 'x'.repeat(MAX_EVENT_BYTES) });
    expect(prescanEventBatch(JSON.stringify({ events: [event(), event(), event(), huge] }))).toEqual({
      ok: false,
      status: 413,
      detail: 'an event of the batch is larger than one event may be; nothing was decided',
      errors: [{ path: 'events[3]', message: `is larger than ${MAX_EVENT_BYTES} bytes, the limit of one event` }],
    });
    const fine = JSON.stringify({ events: [event({ blob: 'x'.repeat(MAX_EVENT_BYTES - 200) }), event({ blob: 'y'.repeat(MAX_EVENT_BYTES - 200) })] });
    expect(prescanEventBatch(fine)).toBeUndefined();
    expect(prescanEventBatch(JSON.stringify({ events: [event()] }))).toBeUndefined();
    const dense = JSON.stringify({ events: [event({ values: Array.from({ length: 600_000 }, () => 0) }), event({ values: Array.from({ length: 600_000 }, () => 0) })] });
    expect(prescanEventBatch(dense)).toMatchObject({ status: 413, detail: expect.stringContaining(`${MAX_REQUEST_VALUES} json values`) });
  });

  it('refuse the issue’s AuthZEN request at its default, and entries by their own entities or with the defaults', () => {
    const wide = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`key-${String(i).padStart(7, '0')}`, i]));
    const entries = Array.from({ length: 100 }, (_, i) => ({ resource: { type: 'doc', id: `d${i}` } }));
    expect(prescanAuthZen(JSON.stringify({ subject: { type: 'u', id: 'm' }, action: { name: 'read' }, context: wide, evaluations: entries }))).toMatchObject({
      status: 413,
      errors: [{ path: 'context' }],
    });
    const blob = (size: number) => ({ blob: 'x'.repeat(size) });
    expect(prescanAuthZen(JSON.stringify({ action: { name: 'read' }, evaluations: [{}, { context: blob(MAX_EVENT_BYTES + 1) }] }))).toMatchObject({
      errors: [{ path: 'evaluations[1].context' }],
    });
    const half = MAX_EVENT_BYTES / 2 + 100;
    expect(prescanAuthZen(JSON.stringify({ context: blob(half), evaluations: [{ context: {} }, { resource: blob(half) }] }))).toMatchObject({
      errors: [{ path: 'evaluations[1]', message: expect.stringContaining('with the defaults it takes') }],
    });
    expect(prescanAuthZen(JSON.stringify({ context: blob(half), evaluations: [{ resource: blob(100) }, { resource: blob(100) }] }))).toBeUndefined();
  });
});
