import { call, type RunningService } from '@custos/test-kit';
import { useStack } from './use-stack';
import { event } from './policies';

/**
 * A solution's settings (issue 25) end to end: pap on PostgreSQL, two pdp replicas as processes with the pdp's own
 * defaults (`DEFAULT_DECISION=allow`, `PDP_AUTHZEN_DEFAULT=deny`). Settings of one solution change its defaults on
 * every replica at the revision pap answered, and no other solution's.
 */
describe("a solution's default decisions across replicas", () => {
  const system = useStack({ replicas: 2 });

  const put = (solution: string, settings: object) => call('PUT', `${system.stack.pap.url}/ws/solutions/${solution}/settings`, { token: system.token, json: settings });
  const decide = (pdp: RunningService, solution: string, minRevision: number) =>
    call('POST', `${pdp.url}/event`, { token: system.token, json: event(solution, 'nothing-speaks-of-this'), headers: { 'Min-Policy-Revision': String(minRevision) } });
  const evaluate = (pdp: RunningService, solution: string, minRevision: number) =>
    call('POST', `${pdp.url}/access/v1/evaluation`, {
      token: system.token,
      json: { subject: { type: 'user', id: 'ann' }, action: { name: `urn:action:${solution}:nothing-speaks-of-this` }, resource: { type: 'doc', id: '1' } },
      headers: { 'Min-Policy-Revision': String(minRevision) },
    });

  it('inhibits an unmatched action of solution A on both replicas at the answered revision, while solution B still allows', async () => {
    const answer = await put('acme', { defaultDecision: 'inhibit' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ settings: { defaultDecision: 'inhibit' }, changed: true });
    const revision = answer.body.revision as number;
    expect(answer.headers.get('policy-revision')).toBe(String(revision));
    for (const pdp of system.stack.pdps) {
      const inhibited = await decide(pdp, 'acme', revision);
      expect(inhibited.body.eventAllowed).toBe(false);
      expect(inhibited.headers.get('policy-revision')).toBe(String(revision));
      const allowed = await decide(pdp, 'beta', revision);
      expect(allowed.body.eventAllowed).toBe(true);
      expect(allowed.headers.get('policy-revision')).toBe(String(revision));
    }
  }, 60_000);

  it("answers AuthZEN with the solution's own default where it has one, else the pdp's deny", async () => {
    const answer = await put('beta', { authzenDefault: 'allow' });
    const revision = answer.body.revision as number;
    for (const pdp of system.stack.pdps) {
      const beta = await evaluate(pdp, 'beta', revision);
      expect(beta.status).toBe(200);
      expect(beta.body).toEqual({ decision: true });
      expect(beta.headers.get('policy-revision')).toBe(String(revision));
      expect((await evaluate(pdp, 'acme', revision)).body).toEqual({ decision: false });
    }
  }, 60_000);

  it('refuses a wrong value by naming the allowed ones, and an over-long solution name for its length', async () => {
    const wrong = await put('acme', { defaultDecision: 'deny' });
    expect(wrong.status).toBe(400);
    expect(wrong.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(wrong.body.errors).toEqual([{ path: 'defaultDecision', message: 'must be one of `allow`, `inhibit`' }]);
    const long = await put('a'.repeat(129), { defaultDecision: 'allow' });
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ code: 'invalid_id', detail: 'the solution name in the URL is 129 characters long; it may have at most 128' });
  }, 60_000);
});
