import { NO_TRACING, type StartSpanOptions, type TraceSpan, type Tracing } from '@custos/service-kit';
import { waitFor } from '@custos/test-kit';
import { Decider } from '../src/decision/decider';
import { runDecision } from '../src/decision/pipeline';
import { PolicySetFollower, type ActivePolicySet } from '../src/policy-set/follower';
import { FakeTransport } from './support/fake-transport';
import { memoryLogger } from './support/logger';
import { inhibitAll } from './support/policies';

/** A tracing that keeps what it was asked to do (spans are stand-ins: the decision pipeline only sets and ends them). */
class RecordingTracing implements Tracing {
  readonly enabled = true;
  readonly started: Array<{ name: string; options: StartSpanOptions; attributes: Record<string, unknown>; ended: boolean; error?: unknown; activeDuring: number }> = [];

  startSpan(name: string, options: StartSpanOptions = {}): TraceSpan {
    const record = { name, options, attributes: { ...options.attributes }, ended: false, activeDuring: 0 };
    this.started.push(record);
    return { setAttributes: (attributes: Record<string, unknown>) => Object.assign(record.attributes, attributes), record } as unknown as TraceSpan;
  }
  withSpan<T>(span: TraceSpan, run: () => T): T {
    (span as unknown as { record: { activeDuring: number } }).record.activeDuring += 1;
    return run();
  }
  activeSpanContext = () => undefined;
  inject = () => undefined;
  end(span: TraceSpan, error?: unknown): void {
    const { record } = span as unknown as { record: { ended: boolean; error?: unknown } };
    record.ended = true;
    if (error !== undefined) record.error = error;
  }
  shutdown = () => Promise.resolve();
}

describe('the decision pipeline with tracing off and on', () => {
  const logger = memoryLogger().logger;
  const transport = new FakeTransport();
  const follower = new PolicySetFollower({ transport, logger, resyncIntervalMs: 0 });
  let active: ActivePolicySet;
  const event = { action: 'urn:action:acme:delete', timestamp: 0, parameters: new Map() };

  beforeAll(async () => {
    transport.state = { revision: 4, policies: [{ id: 'urn:policy:acme:p', xml: inhibitAll('urn:policy:acme:p', 'urn:action:acme:delete') }] };
    await follower.start();
    await waitFor(() => follower.active?.revision === 4, { what: 'revision 4' });
    active = follower.active!;
  });
  afterAll(() => follower.stop());

  it('off: never begins a span, and a pure decision still comes back as a plain value', () => {
    const refusing: Tracing = {
      ...NO_TRACING,
      startSpan: () => {
        throw new Error('no span may be begun with tracing off');
      },
    };
    const decider = new Decider({ defaultDecision: 'allow', timeZone: 'UTC', logger, tracing: refusing });
    const done = runDecision(decider, { active, event, solution: 'acme', explain: false, headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' } });
    expect(done).not.toBeInstanceOf(Promise);
    expect(done).toMatchObject({ decision: { allowed: false } });
    expect(new Decider({ defaultDecision: 'allow', timeZone: 'UTC', logger }).tracing).toBe(NO_TRACING);
  });

  it('on: one span per decision, continuing the request headers, active while deciding, ended with its outcome', () => {
    const tracing = new RecordingTracing();
    const decider = new Decider({ defaultDecision: 'allow', timeZone: 'UTC', logger, tracing });
    const headers = { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' };
    const done = runDecision(decider, { active, event, solution: 'acme', explain: false, headers });
    expect(done).not.toBeInstanceOf(Promise);
    const decisionId = (done as { decisionId: string }).decisionId;
    expect(tracing.started).toEqual([
      {
        name: 'custos.decision',
        options: expect.objectContaining({ kind: 'server', headers }),
        attributes: {
          'custos.action': 'urn:action:acme:delete',
          'custos.solution': 'acme',
          'custos.policy_revision': 4,
          'custos.decision.id': decisionId,
          'custos.decision': 'inhibit',
        },
        ended: true,
        activeDuring: 1,
      },
    ]);
  });

  it('on: an explanation is its own span name, and a timer tick a root', () => {
    const tracing = new RecordingTracing();
    const decider = new Decider({ defaultDecision: 'allow', timeZone: 'UTC', logger, tracing });
    expect(runDecision(decider, { active, event, solution: 'acme', explain: true })).not.toBeInstanceOf(Promise);
    expect(runDecision(decider, { active, event, solution: 'acme', explain: false, timerId: 'urn:timer:acme:t' })).not.toBeInstanceOf(Promise);
    expect(tracing.started.map(({ name, options }) => [name, options.kind, options.root ?? false, options.headers])).toEqual([
      ['custos.explain', 'internal', false, undefined],
      ['custos.decision', 'internal', true, undefined],
    ]);
    expect(tracing.started[1]?.attributes['custos.timer.id']).toBe('urn:timer:acme:t');
  });
});
