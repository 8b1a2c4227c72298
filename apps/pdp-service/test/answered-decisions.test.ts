import { AnsweredDecisions } from '../src/decision/answered';
import { createDecisionLogger, logDecision, type DecisionRecord } from '../src/decision/log';
import { createPdpMetrics } from '../src/metrics';
import { decisionRecord, engineDecision, nextTurn } from './support/decision-records';
import { memoryLogger } from './support/logger';

describe('answered decisions (metrics and decision lines after the answer)', () => {
  const record = (n: number, allowed: boolean, explain = false): DecisionRecord =>
    decisionRecord(n, { decision: engineDecision({ allowed, matchedPolicies: ['urn:policy:acme:a'] }), explain });

  it('writes the lines logDecision would write, in order, and counts every outcome once the loop moves on', async () => {
    const { logger, lines } = memoryLogger('info');
    const metrics = createPdpMetrics(false);
    const answered = new AnsweredDecisions(createDecisionLogger(logger), metrics);
    const records = [record(1, true), record(2, false), record(3, true), record(4, true, true)];
    for (const r of records) answered.add(r, r.latencyUs / 1e6);
    // Nothing yet: the work waits for the pass of the event loop that answered them to end.
    expect(lines).toHaveLength(0);
    await nextTurn();

    const { logger: oneByOne, lines: expected } = memoryLogger('info');
    for (const r of records) logDecision(createDecisionLogger(oneByOne), r);
    const withoutTime = (line: Record<string, unknown>) => ({ ...line, time: undefined });
    expect(lines.map(withoutTime)).toEqual(expected.map(withoutTime));
    expect(lines.map((line) => line.decisionId)).toEqual(['urn:decision:1', 'urn:decision:2', 'urn:decision:3', 'urn:decision:4']);

    const text = await metrics.registry.metrics();
    expect(text).toMatch(/decisions_total\{outcome="allow",service="pdp-service"\} 2\n/);
    expect(text).toMatch(/decisions_total\{outcome="inhibit",service="pdp-service"\} 1\n/);
    expect(text).toMatch(/explains_total\{outcome="allow",service="pdp-service"\} 1\n/);
    // Explanations are not in the latency histogram.
    expect(text).toMatch(/decision_duration_seconds_count\{service="pdp-service"\} 3\n/);
  });

  it('writes nothing when the log is above info, and still counts', async () => {
    const { logger, lines } = memoryLogger('warn');
    const metrics = createPdpMetrics(false);
    const answered = new AnsweredDecisions(createDecisionLogger(logger), metrics);
    answered.add(record(1, false), 0.001);
    await nextTurn();
    expect(lines).toHaveLength(0);
    expect(await metrics.registry.metrics()).toMatch(/decisions_total\{outcome="inhibit",service="pdp-service"\} 1\n/);
  });
});
