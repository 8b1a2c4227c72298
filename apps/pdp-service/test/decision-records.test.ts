import type { EngineEvent } from '@custos/policy-engine';
import { waitFor } from '@custos/test-kit';
import { DecisionRecordBuffer, type BufferedRecord } from '../src/decision-records/buffer';
import { recordJson, recordedParameters } from '../src/decision-records/encode';
import { decisionMembers, type DecisionRecord } from '../src/decision/log';
import { decisionRecord, engineDecision, nextTurn } from './support/decision-records';

const decision = engineDecision({ allowed: false, decided: false, defaultSource: 'solution' });
const record = (n: number): DecisionRecord => decisionRecord(n, { decision });
const event: EngineEvent = { action: 'urn:action:acme:show', timestamp: 1_700_000_000_000, parameters: new Map<string, unknown>([['user', 'ann'], ['doc', { id: 7 }]]) };

/** A buffer whose batches land in `batches`; `gate` holds a publish until released. */
function buffer(options: { capacity: number; batchSize: number; flushMs?: number }) {
  const batches: BufferedRecord[][] = [];
  const counts = { published: 0, dropped: 0, failed: 0 };
  let release: (() => void) | undefined;
  let holding = false;
  const records = new DecisionRecordBuffer({
    capacity: options.capacity,
    batchSize: options.batchSize,
    flushMs: options.flushMs ?? 60_000,
    publish: (batch) => {
      batches.push([...batch]);
      if (!holding) return Promise.resolve();
      return new Promise<void>((resolve) => (release = resolve));
    },
    onPublished: (count) => (counts.published += count),
    onDropped: (count) => (counts.dropped += count),
    onFailed: (_error, count) => (counts.failed += count),
    now: () => 1_700_000_000_123,
  });
  return { records, batches, counts, hold: () => (holding = true), release: () => {
      holding = false;
      release?.();
    },
  };
}

describe('decision records: the bounded buffer', () => {
  it('publishes nothing while the answer is made, then a full batch on the next turn of the loop', async () => {
    const { records, batches, counts } = buffer({ capacity: 100, batchSize: 3 });
    for (let n = 1; n <= 3; n++) records.add(record(n), event);
    expect(batches).toHaveLength(0);
    await nextTurn();
    await records.flush();
    expect(batches.map((batch) => batch.map((item) => item.record.decisionId))).toEqual([['urn:decision:1', 'urn:decision:2', 'urn:decision:3']]);
    expect(counts).toEqual({ published: 3, dropped: 0, failed: 0 });
  });

  it('publishes a batch that is not full once flushMs has passed', async () => {
    const { records, batches } = buffer({ capacity: 100, batchSize: 50, flushMs: 5 });
    records.add(record(1), event);
    await nextTurn();
    expect(batches).toHaveLength(0);
    await waitFor(() => batches.length > 0, { what: 'the timed batch' });
    expect(batches.map((batch) => batch.length)).toEqual([1]);
  });

  it('drops and counts what comes while the buffer is full, and takes records again once a batch is out', async () => {
    const { records, batches, counts, hold, release } = buffer({ capacity: 4, batchSize: 2 });
    hold();
    for (let n = 1; n <= 4; n++) records.add(record(n), undefined);
    await nextTurn();
    // One batch of two is out (held); two wait; the buffer holds 2 of 4, so two more fit and the rest are dropped.
    expect(batches).toHaveLength(1);
    for (let n = 5; n <= 9; n++) records.add(record(n), undefined);
    expect(records.waiting).toBe(4);
    await nextTurn();
    expect(counts.dropped).toBe(3);
    release();
    await records.close();
    const published = batches.flat().map((item) => item.record.decisionId);
    expect(published).toEqual(['urn:decision:1', 'urn:decision:2', 'urn:decision:3', 'urn:decision:4', 'urn:decision:5', 'urn:decision:6']);
    expect(counts).toEqual({ published: 6, dropped: 3, failed: 0 });
  });

  it('counts a batch that could not be published as failed, and goes on with the next', async () => {
    let calls = 0;
    const counts = { published: 0, failed: 0 };
    const records = new DecisionRecordBuffer({
      capacity: 10,
      batchSize: 2,
      flushMs: 60_000,
      publish: () => (calls++ === 0 ? Promise.reject(new Error('nats away')) : Promise.resolve()),
      onPublished: (count) => (counts.published += count),
      onDropped: () => undefined,
      onFailed: (_error, count) => (counts.failed += count),
    });
    for (let n = 1; n <= 4; n++) records.add(record(n), undefined);
    await records.close();
    expect(counts).toEqual({ published: 2, failed: 2 });
  });

  it('takes no records once closed, counting them dropped', async () => {
    const { records, counts, batches } = buffer({ capacity: 10, batchSize: 10 });
    await records.close();
    records.add(record(1), undefined);
    await nextTurn();
    expect(batches).toHaveLength(0);
    expect(counts.dropped).toBe(1);
  });
});

describe('decision records: what a record carries', () => {
  const encoding = (clear?: string[], hashed?: boolean) => ({
    replicaId: 'pdp-a',
    parametersOf: (solution: string) => (solution === 'acme' && (clear !== undefined || hashed !== undefined) ? { ...(clear ? { clear } : {}), ...(hashed ? { hashed } : {}) } : undefined),
    hash: (name: string, value: unknown) => `h(${name}=${JSON.stringify(value)})`,
  });

  it('is the decision line with the replica and the time, and no parameter when the solution did not opt in', () => {
    const text = recordJson(record(1), event, 1_700_000_000_123, encoding());
    const parsed = JSON.parse(text) as Record<string, unknown>;
    expect(parsed).toEqual({ ...(JSON.parse(`{${decisionMembers(record(1))}}`) as object), replicaId: 'pdp-a', time: '2023-11-14T22:13:20.123Z' });
    expect(text).not.toContain('"ann"');
  });

  it('carries listed parameters with their values, the others hashed or left out', () => {
    const listedOnly = recordedParameters(event, { clear: ['user'] }, encoding());
    expect(listedOnly).toEqual({ parameters: [{ name: 'user', value: { value: 'ann', type: 'java.lang.String', isComplex: false } }], complete: false });
    const hashed = recordedParameters(event, { clear: ['user'], hashed: true }, encoding());
    expect(hashed.parameters[1]).toEqual({ name: 'doc', hash: 'h(doc={"id":7})' });
    expect(JSON.stringify(hashed)).not.toContain('"id":7}}');
    const all = recordedParameters(event, { clear: ['*'] }, encoding());
    expect(all.complete).toBe(true);
    expect(all.parameters.map((p) => p.name)).toEqual(['user', 'doc']);
  });

  it('says the event is at hand only when every parameter is carried with its value', () => {
    const parsed = JSON.parse(recordJson(record(2), event, 0, encoding(['*']))) as { complete: boolean; eventTimestamp: number; parameters: unknown[] };
    expect(parsed.complete).toBe(true);
    expect(parsed.eventTimestamp).toBe(event.timestamp);
    expect(parsed.parameters).toHaveLength(2);
  });
});
