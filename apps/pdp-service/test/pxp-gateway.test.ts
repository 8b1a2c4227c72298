import { CallTargets } from '../src/calls/http-json';
import { ComponentRegistry } from '../src/components/registry';
import { PxpGateway } from '../src/pxp/gateway';
import { nextFireTime } from '@custos/policy-engine';
import { compileTimer } from '../src/timers/schedule';
import { TestEndpoint } from './support/endpoints';
import { memoryLogger } from './support/logger';
import { component, timerXml } from './support/pdp';

describe('PxpGateway at shutdown', () => {
  it('waits for pending executes and logs those it gives up on as abandoned, never silently', async () => {
    const pxp = await new TestEndpoint(true).start();
    const log = memoryLogger('info');
    const targets = new CallTargets({ timeoutMs: 5000, maxConcurrency: 4, breakerFailures: 5, breakerOpenMs: 1000 });
    const gateway = new PxpGateway({ targets, logger: log.logger, timeoutMs: 5000, syncTimeoutMs: 500, attempts: 3, backoffMs: 10 });
    const registry = new ComponentRegistry(new Map([[`urn:component:acme:pxp:slow`, component('PXP', 'slow', pxp.url, ['urn:action:acme:slow', 'urn:action:acme:fast'])]]));
    try {
      pxp.behaviour = (call) => (call.body.id.urn === 'urn:action:acme:slow' ? { answer: true, delayMs: 3000 } : { answer: true });
      const dispatched = gateway.dispatch(
        registry,
        [
          { policyId: 'urn:policy:acme:p', action: 'urn:action:acme:slow', parameters: [] },
          { policyId: 'urn:policy:acme:p', action: 'urn:action:acme:fast', parameters: [] },
          { policyId: 'urn:policy:acme:p', action: 'urn:action:acme:nobody', parameters: [] },
        ],
        { decisionId: 'urn:decision:d1' },
      );
      expect(gateway.size).toBe(2);
      await gateway.drain(300);
      await dispatched;
      const outcomes = log.lines.filter((l) => l.decisionId === 'urn:decision:d1').map((l) => [l.action, l.outcome]);
      expect(outcomes).toEqual(
        expect.arrayContaining([
          ['urn:action:acme:nobody', 'unregistered'],
          ['urn:action:acme:fast', 'done'],
          ['urn:action:acme:slow', 'abandoned'],
        ]),
      );
      expect(gateway.size).toBe(0);
      // Once stopping, new executes are refused loudly.
      await gateway.dispatch(registry, [{ policyId: 'urn:policy:acme:p', action: 'urn:action:acme:fast', parameters: [] }], { decisionId: 'urn:decision:d2' });
      expect(log.lines.find((l) => l.decisionId === 'urn:decision:d2')).toMatchObject({ msg: 'pxp execute dropped', reason: 'shutting down', level: 'error' });
    } finally {
      targets.close();
      await pxp.stop();
    }
  });
});

describe('timer schedules', () => {
  it('fires at wall-clock times of the policy zone, across daylight saving', () => {
    const timer = { schedule: '0 0 2 * * ?' };
    expect(nextFireTime(timer, new Date(Date.parse('2026-01-10T12:00:00Z')), 'Europe/Berlin')?.toISOString()).toBe('2026-01-11T01:00:00.000Z');
    expect(nextFireTime(timer, new Date(Date.parse('2026-07-10T12:00:00Z')), 'Europe/Berlin')?.toISOString()).toBe('2026-07-11T00:00:00.000Z');
    expect(nextFireTime(timer, new Date(Date.parse('2026-07-10T12:00:00Z')), 'UTC')?.toISOString()).toBe('2026-07-11T02:00:00.000Z');
    // Quartz day-of-week numbers (2 = Monday) arrive translated.
    const monday = compileTimer(timerXml('urn:timer:acme:m', '0 0 9 ? * 2', '<event action="urn:action:acme:a"/>'));
    expect(monday.ok).toBe(true);
    if (monday.ok) {
      expect(nextFireTime(monday.timer, new Date(Date.parse('2026-03-04T12:00:00Z')), 'UTC')?.toISOString()).toBe('2026-03-09T09:00:00.000Z');
    }
    expect(compileTimer(timerXml('urn:timer:acme:x', '0 0 0 30 2 ?', '<event action="urn:action:acme:a"/>'))).toMatchObject({ ok: false });
  });
});
