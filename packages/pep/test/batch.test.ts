import { MAX_BATCH_ITEMS, type Event } from '@custos/contracts';
import { DecisionDeniedError, MalformedDecisionError, ModifierError, TransportError, UnexpectedStatusError, UnsupportedModifierError } from '../src/errors';
import { event } from '../src/event-builder';
import { failureOf, useClientBench } from './client-bench';
import { decision, json, modifier, type Handler } from './servers';

/** `decideAll` and `enforceAll` against a real HTTP server standing in for the pdp's `POST /events`. */
const bench = useClientBench(() => echo([]));

const employee = (firstName: string): Event => event('acme', 'show-employee', { user: { name: { firstName } } }, { timestamp: 1763798400000 });

/** Answers one decision per event it was sent, `answers[i]` for the i-th (an allowing one when absent). */
function echo(answers: unknown[], headers: Record<string, string> = { 'Policy-Revision': '7' }): Handler {
  return (seen, res) => {
    const { events } = JSON.parse(seen.body) as { events: unknown[] };
    json(res, 200, { decisions: events.map((_, index) => answers[index] ?? decision()) }, headers);
  };
}

describe('decideAll', () => {
  it('posts every event in one request and returns the decisions in their order, with the revision', async () => {
    bench.pdp.handle(echo([decision(), decision([], { allowed: false, delay: 50 }), decision([modifier('user', '$.name.firstName', 'shorten')])]));
    const events = [employee('Ann'), employee('Mallory'), employee('Bea')];
    const decisions = await bench.client().decideAll(events);
    expect(decisions.map((d) => [d.eventAllowed, d.delay, d.modifiers.length, d.policyRevision])).toEqual([
      [true, 0, 0, 7],
      [false, 50, 0, 7],
      [true, 0, 1, 7],
    ]);
    expect(bench.pdp.seen).toHaveLength(1);
    expect(bench.pdp.seen[0]?.url).toBe('/events');
    expect(bench.pdp.seen[0]?.headers.authorization).toBe('Bearer token-1');
    expect(JSON.parse(bench.pdp.seen[0]?.body ?? '')).toEqual({ events });
  });

  it('keeps the base path of a gateway and sends Min-Policy-Revision like decide', async () => {
    const custos = bench.client({ pdpUrl: `${bench.pdp.url}/custos`, monotonicRevisions: true });
    await custos.decideAll([employee('Ann')], { minPolicyRevision: 5 });
    await custos.decideAll([employee('Ann')]);
    expect(bench.pdp.seen.map((seen) => [seen.url, seen.headers['min-policy-revision']])).toEqual([
      ['/custos/events', '5'],
      ['/custos/events', '7'],
    ]);
  });

  it('answers an empty list without asking, and refuses more events than one request may carry', async () => {
    await expect(bench.client().decideAll([])).resolves.toEqual([]);
    const many = Array.from({ length: MAX_BATCH_ITEMS + 1 }, () => employee('Ann'));
    await expect(bench.client().decideAll(many)).rejects.toThrow(`\`events\` holds ${MAX_BATCH_ITEMS + 1} events; one request takes at most ${MAX_BATCH_ITEMS}`);
    expect(bench.pdp.seen).toHaveLength(0);
  });

  it.each([
    ['fewer decisions than events', { decisions: [decision()] }, RangeError],
    ['no list', { decision: decision() }, TypeError],
    ['one decision of the wrong shape', { decisions: [decision(), { ...decision(), eventAllowed: 'yes' }] }, TypeError],
  ])('rejects an answer with %s', async (_, body, cause) => {
    bench.pdp.handle((__, res) => json(res, 200, body, { 'Policy-Revision': '7' }));
    const error = await failureOf(bench.client().decideAll([employee('Ann'), employee('Bea')]));
    expect(error).toBeInstanceOf(MalformedDecisionError);
    expect(error.cause).toBeInstanceOf(cause);
  });

  it('never sends a batch again once it may have reached the pdp', async () => {
    bench.pdp.handle((_, res, req) => void req.socket.destroy());
    expect(await failureOf(bench.client().decideAll([employee('Ann')]))).toBeInstanceOf(TransportError);
    bench.pdp.handle((_, res) => json(res, 500, { code: 'internal_error' }));
    expect(await failureOf(bench.client().decideAll([employee('Ann')]))).toBeInstanceOf(UnexpectedStatusError);
    expect(bench.pdp.seen).toHaveLength(2);
  });

  it('retries after a 503 the pdp sends before deciding, with a fresh token after a 401', async () => {
    let calls = 0;
    bench.pdp.handle((seen, res) => {
      calls += 1;
      if (calls === 1) json(res, 401, { code: 'invalid_token' });
      else if (calls === 2) json(res, 503, { code: 'service_unavailable' }, { 'Retry-After': '0' });
      else echo([])(seen, res, undefined as never);
    });
    await expect(bench.client().decideAll([employee('Ann')])).resolves.toHaveLength(1);
    expect(bench.pdp.seen.map((seen) => seen.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-2', 'Bearer token-2']);
  });
});

describe('enforceAll', () => {
  it('releases, refuses and modifies each event on its own, leaving the caller’s events alone', async () => {
    bench.pdp.handle(
      echo([
        decision([modifier('user', '$.name.firstName', 'append', { suffix: ' (masked)' })]),
        decision([], { allowed: false }),
        decision([modifier('user', '$.name', 'encrypt')]),
        decision([modifier('user', '$.name.firstName', 'divide', { operand: 2 })]),
      ]),
    );
    const events = [employee('Ann'), employee('Mallory'), employee('Bea'), employee('Cy')];
    const snapshot = structuredClone(events);
    const items = await bench.client().enforceAll(events);
    expect(events).toEqual(snapshot);
    expect(items.map((item) => item.released)).toEqual([true, false, false, false]);
    const [masked, denied, unknown, wrongKind] = items;
    expect(masked?.released && masked.event.parameters[0]?.value.value).toEqual({ name: { firstName: 'Ann (masked)' } });
    expect(!denied?.released && denied?.error).toBeInstanceOf(DecisionDeniedError);
    expect(!unknown?.released && unknown?.error).toBeInstanceOf(UnsupportedModifierError);
    expect(!wrongKind?.released && wrongKind?.error).toBeInstanceOf(ModifierError);
    expect(!wrongKind?.released && wrongKind?.decision.eventAllowed).toBe(true);
  });

  it('waits out the longest delay once, denials included, or returns each delay with applyDelay: false', async () => {
    bench.pdp.handle(echo([decision([], { delay: 300 }), decision([], { allowed: false, delay: 900 }), decision()]));
    const slept: number[] = [];
    const items = await bench.client({ sleep: (ms) => (slept.push(ms), Promise.resolve()) }).enforceAll([employee('Ann'), employee('Mallory'), employee('Bea')]);
    expect(slept).toEqual([900]);
    expect(items.map((item) => (item.released ? [item.delayMs, item.delayApplied] : 'refused'))).toEqual([[300, true], 'refused', [0, true]]);

    // An hour: had it been waited for, the test would time out.
    bench.pdp.handle(echo([decision([], { delay: 3_600_000 })]));
    const [unwaited] = await bench.client().enforceAll([employee('Ann')], { applyDelay: false });
    expect(unwaited).toMatchObject({ released: true, delayMs: 3_600_000, delayApplied: false });
  });

  it('rejects as a whole when there is no usable answer, and fails open only where enforce would', async () => {
    bench.pdp.handle((_, res) => json(res, 200, { decisions: [] }, { 'Policy-Revision': '7' }));
    expect(await failureOf(bench.client().enforceAll([employee('Ann')]))).toBeInstanceOf(MalformedDecisionError);

    bench.pdp.handle((_, res, req) => void req.socket.destroy());
    expect(await failureOf(bench.client().enforceAll([employee('Ann')]))).toBeInstanceOf(TransportError);
    const open = await bench.client({ failClosed: false }).enforceAll([employee('Ann'), employee('Bea')]);
    expect(open.map((item) => item.released && item.decision === null && item.failedOpen instanceof TransportError)).toEqual([true, true]);
    expect(open[1]?.released && open[1].event).toEqual(employee('Bea'));
  });
});
