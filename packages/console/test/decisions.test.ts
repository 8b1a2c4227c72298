import type { DecisionRecordWire } from '@custos/contracts';
import { NO_FILTERS, decisionQuery, eventOfRecord, howDecided } from '../src/web/logic/decisions';

const record = (patch: Partial<DecisionRecordWire> = {}): DecisionRecordWire => ({
  decisionId: 'urn:decision:0190f1a2-0000-7000-8000-000000000001',
  requestId: 'req-1',
  clientId: 'admin',
  replicaId: 'pdp-a',
  time: '2026-11-27T10:00:00.000Z',
  action: 'urn:action:acme:read',
  solution: 'acme',
  revision: 4,
  explain: false,
  matchedPolicies: ['urn:policy:acme:p'],
  allowed: true,
  decided: true,
  modifiers: 0,
  delayMs: 0,
  latencyUs: 80,
  errors: [],
  plannedExecutions: 0,
  executions: [],
  ...patch,
});

describe('the Decisions page logic', () => {
  it('asks only for the filters given, with times in UTC', () => {
    const query = new URLSearchParams(decisionQuery({ ...NO_FILTERS, solution: ' acme ', outcome: 'inhibit', from: '2026-11-27T10:00:00Z' }, 50));
    expect([...query.keys()].sort()).toEqual(['from', 'limit', 'outcome', 'solution']);
    expect(query.get('solution')).toBe('acme');
    expect(query.get('from')).toBe('2026-11-27T10:00:00.000Z');
    expect(query.get('limit')).toBe('50');
  });

  it('passes an unreadable time on as typed, for pap to refuse', () => {
    expect(new URLSearchParams(decisionQuery({ ...NO_FILTERS, to: 'tomorrow' })).get('to')).toBe('tomorrow');
  });

  it('makes the event again only from a record that carries every parameter with its value', () => {
    const value = { value: 'ann', type: 'java.lang.String', isComplex: false };
    const complete = record({ complete: true, eventTimestamp: 1234, parameters: [{ name: 'user', value }] });
    expect(eventOfRecord(complete)).toEqual({ actionId: { urn: 'urn:action:acme:read' }, timestamp: 1234, parameters: [{ name: 'user', value }] });
    expect(eventOfRecord(record())).toBeUndefined();
    expect(eventOfRecord(record({ complete: false, eventTimestamp: 1, parameters: [{ name: 'user', hash: 'x' }] }))).toBeUndefined();
  });

  it('says whose default decided when no policy did', () => {
    expect(howDecided(record())).toBe('decided by urn:policy:acme:p');
    expect(howDecided(record({ decided: false, defaultSource: 'solution' }))).toBe("the solution's default decided");
    expect(howDecided(record({ decided: false }))).toBe("the pdp's default decided");
  });
});
