import type { EngineDecision } from '@custos/policy-engine';
import { createDecisionLogger, logDecision, withoutValues, type DecisionRecord } from '../src/decision/log';
import { jsonNumber, jsonString, jsonStrings } from '../src/decision/json-text';
import { decisionRecord, engineDecision } from './support/decision-records';
import { memoryLogger } from './support/logger';

describe('decision log', () => {
  it('blanks quoted user values in error messages', () => {
    expect(withoutValues('cannot compare `secret value` with `42`')).toBe('cannot compare `…` with `…`');
    expect(withoutValues('division by zero')).toBe('division by zero');
  });

  const decision = (overrides: Partial<EngineDecision> = {}): EngineDecision =>
    engineDecision({
      allowed: false,
      modifiers: [
        { policyId: 'urn:policy:acme:a', eventParameter: 'user', expression: '$', method: 'delete', parameters: [], reason: null },
        { policyId: 'urn:policy:acme:a', eventParameter: 'x', expression: '$.y', method: 'replace', parameters: [], reason: 'r' },
      ],
      delayMs: 1500,
      executions: [{ policyId: 'urn:policy:acme:b', action: 'urn:action:acme:notify', parameters: [{ name: 'to', value: 'carol@example.org' }] }],
      matchedPolicies: ['urn:policy:acme:a', 'urn:policy:acme:b'],
      errors: [{ policyId: 'urn:policy:acme:b', mechanism: 1, message: 'cannot compare `Mallory` with `42`' }],
      ...overrides,
    });
  const record = (overrides: Partial<DecisionRecord> = {}): DecisionRecord =>
    decisionRecord(1, { decisionId: 'urn:decision:01a20115-fdc6-714e-8096-c0efb19276e9', revision: 7, decision: decision(), latencyUs: 42, ...overrides });

  it('writes one JSON line with every documented field, in the logger line format, without parameter values', () => {
    const { logger, lines } = memoryLogger('info');
    logDecision(createDecisionLogger(logger), record());
    expect(lines).toHaveLength(1);
    const line = lines[0] ?? {};
    expect(Object.keys(line)).toEqual([
      'level', 'time', 'service', 'log',
      'decisionId', 'requestId', 'clientId', 'action', 'solution', 'revision', 'explain', 'matchedPolicies', 'allowed',
      'decided', 'modifiers', 'delayMs', 'latencyUs', 'errors', 'plannedExecutions', 'executions', 'msg',
    ]);
    expect(line).toEqual({
      level: 'info',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as unknown,
      service: 'pdp-service',
      log: 'decision',
      decisionId: 'urn:decision:01a20115-fdc6-714e-8096-c0efb19276e9',
      requestId: 'req-1',
      clientId: 'client-1',
      action: 'urn:action:acme:show',
      solution: 'acme',
      revision: 7,
      explain: false,
      matchedPolicies: ['urn:policy:acme:a', 'urn:policy:acme:b'],
      allowed: false,
      decided: true,
      modifiers: 2,
      delayMs: 1500,
      latencyUs: 42,
      errors: [{ policyId: 'urn:policy:acme:b', mechanism: 1, message: 'cannot compare `…` with `…`' }],
      plannedExecutions: 1,
      executions: [{ policyId: 'urn:policy:acme:b', action: 'urn:action:acme:notify' }],
      msg: 'decision',
    });
    expect(JSON.stringify(line)).not.toMatch(/Mallory|carol/);
  });

  it('says whose default decided when no mechanism did, right after `decided`', () => {
    const { logger, lines } = memoryLogger('info');
    logDecision(createDecisionLogger(logger), record({ decision: decision({ decided: false, defaultSource: 'solution' }) }));
    const line = lines[0] ?? {};
    expect(line).toMatchObject({ decided: false, defaultSource: 'solution' });
    const keys = Object.keys(line);
    expect(keys.indexOf('defaultSource')).toBe(keys.indexOf('decided') + 1);
  });

  it('escapes whatever a client or policy put into its strings', () => {
    const { logger, lines } = memoryLogger('info');
    const odd = 'quote " backslash \\ tab \t newline \n nul \u0000 é 🙂';
    logDecision(
      createDecisionLogger(logger),
      record({ clientId: odd, requestId: '"}{"x":1', decision: decision({ matchedPolicies: [odd], errors: [], executions: [] }) }),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ clientId: odd, requestId: '"}{"x":1', matchedPolicies: [odd], errors: [], executions: [], plannedExecutions: 0 });
    expect(lines[0]).not.toHaveProperty('x');
  });

  it('writes a request id that is the tail of its decision id as sent, and escapes one whose decision id needs escaping', () => {
    const { logger, lines } = memoryLogger('info');
    const log = createDecisionLogger(logger);
    logDecision(log, record({ requestId: '01a20115-fdc6-714e-8096-c0efb19276e9' }));
    logDecision(log, record({ requestId: '' }));
    // Not made by the pipeline, but a record may carry any string: the tail of an id with a quote is checked.
    logDecision(log, record({ decisionId: 'urn:decision:"}{"x":1', requestId: '"}{"x":1' }));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ decisionId: 'urn:decision:01a20115-fdc6-714e-8096-c0efb19276e9', requestId: '01a20115-fdc6-714e-8096-c0efb19276e9' });
    expect(lines[1]).toMatchObject({ requestId: '' });
    expect(lines[2]).toMatchObject({ decisionId: 'urn:decision:"}{"x":1', requestId: '"}{"x":1' });
    expect(lines[2]).not.toHaveProperty('x');
  });

  it('records no executes for an explanation, and nothing when the level is above info', () => {
    const { logger, lines } = memoryLogger('info');
    logDecision(createDecisionLogger(logger), record({ explain: true }));
    expect(lines[0]).toMatchObject({ explain: true, plannedExecutions: 0, executions: [] });

    const quiet = memoryLogger('warn');
    logDecision(createDecisionLogger(quiet.logger), record());
    expect(quiet.lines).toHaveLength(0);
  });

  it('writes JSON text as JSON.stringify does', () => {
    for (const value of ['', 'urn:policy:acme:a', 'a"b', 'back\\slash', 'line\nbreak', '\u0000\u001f', 'é', '🙂', '\u2028', '\ud800']) {
      expect(jsonString(value)).toBe(JSON.stringify(value));
    }
    for (const value of [0, -3, 1.5, 1e21, Number.NaN, Number.POSITIVE_INFINITY]) expect(jsonNumber(value)).toBe(JSON.stringify(value));
    for (const list of [[], ['a'], ['a', 'b"c', 'é']]) expect(jsonStrings(list)).toBe(JSON.stringify(list));
  });
});
