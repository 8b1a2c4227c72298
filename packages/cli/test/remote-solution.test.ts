import { problemReply, type RecordedRequest, type Reply } from './remote-support/http-server';
import { useStubbedPap } from './remote-support/stubbed-pap';

/** `custos solution settings`: reads a solution's settings, changes the ones named (keeping the others), says the revision. */
describe('solution settings command', () => {
  let stored: Record<string, string>;
  let revision: number;

  /** A pap that holds one solution's settings as the real one does: PUT replaces them, a change takes a revision. */
  const answer = (request: RecordedRequest): Reply => {
    if (request.url !== '/ws/solutions/acme/settings') return problemReply(403, 'insufficient_scope', 'the token does not cover the solution `other`');
    if (request.method === 'GET') return { json: { solution: 'acme', settings: stored, revision }, headers: { 'Policy-Revision': String(revision) } };
    const wanted = JSON.parse(request.body) as Record<string, string>;
    const changed = JSON.stringify(wanted) !== JSON.stringify(stored);
    if (changed) revision++;
    stored = wanted;
    return { json: { solution: 'acme', settings: stored, revision, changed }, headers: { 'Policy-Revision': String(revision) } };
  };

  beforeEach(() => {
    stored = { authzenDefault: 'allow' };
    revision = 4;
  });
  const pap = useStubbedPap(answer);
  const { cli } = pap;

  it("prints the settings, naming the pdp's setting that applies where the solution has none", async () => {
    const run = await cli('solution', 'settings', 'acme');
    expect(run).toMatchObject({
      code: 0,
      out: "solution acme\ndefaultDecision: not set (the pdp's DEFAULT_DECISION)\nauthzenDefault: allow\n",
      err: '',
    });
    expect(pap.requests.map((r) => r.method)).toEqual(['GET']);
  });

  it('sets one setting, keeps the other, and prints the revision; `unset` removes one', async () => {
    const set = await cli('solution', 'settings', 'acme', '--default-decision', 'inhibit');
    expect(set).toMatchObject({ code: 0, out: 'settings of acme changed (policy revision 5)\ndefaultDecision: inhibit\nauthzenDefault: allow\n' });
    expect(pap.requests[1]).toMatchObject({ method: 'PUT', body: JSON.stringify({ authzenDefault: 'allow', defaultDecision: 'inhibit' }) });
    expect(pap.requests[1]?.headers['content-type']).toBe('application/json');

    const unset = await cli('solution', 'settings', 'acme', '--authzen-default', 'unset');
    expect(unset.out).toBe("settings of acme changed (policy revision 6)\ndefaultDecision: inhibit\nauthzenDefault: not set (the pdp's PDP_AUTHZEN_DEFAULT)\n");
    expect(stored).toEqual({ defaultDecision: 'inhibit' });

    const again = await cli('solution', 'settings', 'acme', '--default-decision', 'inhibit');
    expect(again.out).toMatch(/^settings of acme unchanged \(policy revision 6\)\n/);
  });

  it('sets which parameters decision records carry, keeping the other settings, and `unset` removes it', async () => {
    const set = await cli('solution', 'settings', 'acme', '--record-parameters', 'doc, user', '--record-hashed');
    expect(set.code).toBe(0);
    expect(pap.requests[1]).toMatchObject({ method: 'PUT', body: JSON.stringify({ authzenDefault: 'allow', recordParameters: { clear: ['doc', 'user'], hashed: true } }) });
    expect(set.out).toContain('recordParameters: in clear doc,user, the others hashed\n');
    const unset = await cli('solution', 'settings', 'acme', '--record-parameters', 'unset');
    expect(unset.out).not.toContain('recordParameters');
    expect(stored).toEqual({ authzenDefault: 'allow' });
    const alone = await cli('solution', 'settings', 'acme', '--record-hashed');
    expect(alone.code).toBe(2);
    expect(alone.err).toContain('--record-hashed goes with --record-parameters');
  });

  it('refuses a value it does not know, or a name that is no solution, before asking pap', async () => {
    const wrong = await cli('solution', 'settings', 'acme', '--default-decision', 'deny');
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain('--default-decision must be `allow`, `inhibit`, `unset`; got `deny`');
    expect((await cli('solution', 'settings', 'Not/A/Solution')).code).toBe(2);
    expect(pap.requests.filter((r) => r.method === 'PUT')).toEqual([]);
  });

  it("prints pap's refusal for a solution the token does not cover, exit 1", async () => {
    const run = await cli('solution', 'settings', 'other', '--default-decision', 'allow');
    expect(run.code).toBe(1);
    expect(run.err).toContain('the token does not cover the solution `other`');
  });
});
