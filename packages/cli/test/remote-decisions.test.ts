import { problemReply, type RecordedRequest, type Reply } from './remote-support/http-server';
import { useStubbedPap } from './remote-support/stubbed-pap';

const ID = 'urn:decision:0190f1a2-0000-7000-8000-000000000001';
const record = {
  decisionId: ID,
  requestId: 'req-1',
  clientId: 'admin',
  replicaId: 'pdp-a',
  time: '2026-11-27T10:00:00.000Z',
  action: 'urn:action:acme:delete',
  solution: 'acme',
  revision: 4,
  explain: false,
  matchedPolicies: ['urn:policy:acme:no-delete'],
  allowed: false,
  decided: true,
  modifiers: 0,
  delayMs: 0,
  latencyUs: 80,
  errors: [],
  plannedExecutions: 0,
  executions: [],
  parameters: [{ name: 'user', hash: 'abc' }],
};

/** `custos decisions`: pap's decision records, searched with the options given, or one by id. */
describe('decisions command', () => {
  const answer = (request: RecordedRequest): Reply => {
    if (request.url === `/ws/decisions/${ID}`) return { json: record };
    if (request.url.startsWith('/ws/decisions/')) return problemReply(404, 'not_found', 'no record of decision `x`');
    if (request.url.includes('solution=nobody')) return { json: { records: [], truncated: false } };
    return { json: { records: [record], truncated: true } };
  };

  const pap = useStubbedPap(answer);
  const { cli } = pap;

  it('asks pap with the filters given and prints one line per record, saying when more matched', async () => {
    const run = await cli('decisions', '--solution', 'acme', '--outcome', 'inhibit', '--from', '2026-11-27T09:00:00Z', '--limit', '5');
    expect(run.code).toBe(0);
    const url = new URL(pap.requests[0]?.url ?? '', 'http://pap');
    expect(url.pathname).toBe('/ws/decisions');
    expect(Object.fromEntries(url.searchParams)).toEqual({ solution: 'acme', outcome: 'inhibit', from: '2026-11-27T09:00:00Z', limit: '5' });
    expect(run.out).toBe(`2026-11-27T10:00:00.000Z ${ID} acme urn:action:acme:delete inhibit revision 4 client admin replica pdp-a\n`);
    expect(run.err).toContain('more records match');
  });

  it('prints nothing for an empty search and says on stderr why records may be missing', async () => {
    const run = await cli('decisions', '--solution', 'nobody');
    expect(run.code).toBe(0);
    expect(run.out).toBe('');
    expect(run.err).toContain('PDP_DECISION_RECORDS=on');
  });

  it('prints one record in full by its id', async () => {
    const run = await cli('decisions', '--id', ID);
    expect(run.code).toBe(0);
    expect(run.out).toContain('matched policies: urn:policy:acme:no-delete\n');
    expect(run.out).toContain('parameter user: hash abc\n');
  });

  it("says pap's 404 for an unknown id, exit 1, and refuses an outcome it does not know before asking", async () => {
    const unknown = await cli('decisions', '--id', 'urn:decision:unknown');
    expect(unknown.code).toBe(1);
    const wrong = await cli('decisions', '--outcome', 'deny');
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain('--outcome must be `allow` or `inhibit`; got `deny`');
    expect(pap.requests.filter((r) => r.url.startsWith('/ws/decisions?'))).toEqual([]);
  });
});
