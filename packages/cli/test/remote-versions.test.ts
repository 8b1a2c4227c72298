import { problemReply, type Reply } from './remote-support/http-server';
import { useStubbedPap } from './remote-support/stubbed-pap';

const ID = 'urn:policy:acme:p';

describe('policy versions, show-version, diff and restore', () => {
  let reply: Reply;

  beforeEach(() => {
    reply = { json: true };
  });
  const pap = useStubbedPap(() => reply);
  const { cli } = pap;

  it('lists the versions as a table: number, when, who, request id, and which is current and deployed', async () => {
    reply = {
      json: {
        id: { identifier: ID },
        versions: [
          { number: 1, clientId: null, requestId: null, createdAt: '2026-11-01T10:00:00.000Z', current: false, deployed: false },
          { number: 2, clientId: 'ci-bot', requestId: 'req-7', createdAt: '2026-11-02T10:00:00.000Z', current: true, deployed: true },
        ],
      },
    };
    const run = await cli('policy', 'versions', ID);
    expect(run).toMatchObject({
      code: 0,
      out: 'v1  2026-11-01T10:00:00.000Z  -       -\nv2  2026-11-02T10:00:00.000Z  ci-bot  req-7  current, deployed\n',
    });
    expect(pap.requests[0]).toMatchObject({ method: 'GET', url: `/ws/policy/${ID}/versions` });
  });

  it('prints a version\'s XML, asking for XML', async () => {
    reply = { text: '<policy id="urn:policy:acme:p"/>' };
    const run = await cli('policy', 'show-version', ID, '1');
    expect(run).toMatchObject({ code: 0, out: '<policy id="urn:policy:acme:p"/>\n' });
    expect(pap.requests[0]).toMatchObject({ method: 'GET', url: `/ws/policy/${ID}/versions/1` });
    expect(pap.requests[0]?.headers.accept).toBe('application/xml');
  });

  it('prints the diff pap answers, with `to` only when given', async () => {
    reply = { text: '--- a\n+++ b\n' };
    expect(await cli('timer', 'diff', 'urn:timer:acme:t', '1')).toMatchObject({ code: 0, out: '--- a\n+++ b\n' });
    expect(await cli('timer', 'diff', 'urn:timer:acme:t', '1', '3')).toMatchObject({ code: 0 });
    expect(pap.requests.map((request) => request.url)).toEqual(['/ws/timer/urn:timer:acme:t/diff?from=1', '/ws/timer/urn:timer:acme:t/diff?from=1&to=3']);
  });

  it('restores, deploying when asked, and prints the new version and the revision', async () => {
    reply = { json: { version: 4, deployed: true, revision: 9, changed: true }, headers: { 'Policy-Revision': '9' } };
    const run = await cli('policy', 'restore', ID, '2', '--deploy');
    expect(run).toMatchObject({ code: 0, out: `restored ${ID} v2 as v4, deployed (policy revision 9)\n` });
    expect(pap.requests[0]).toMatchObject({ method: 'POST', url: `/ws/policy/${ID}/versions/2/restore?deploy=true` });
  });

  it('refuses a version that is not a number, or an id of the other kind, before asking pap (exit 2)', async () => {
    expect(await cli('policy', 'show-version', ID, 'latest')).toMatchObject({ code: 2, err: 'error: `latest` is not a version number (1, 2, …)\n' });
    expect(await cli('policy', 'restore', 'urn:timer:acme:t', '1')).toMatchObject({ code: 2 });
    expect(pap.requests).toHaveLength(0);
  });

  it('prints pap\'s refusal and exits 1', async () => {
    reply = problemReply(404, 'not_found', 'no version 9 of policy `urn:policy:acme:p`');
    const run = await cli('policy', 'restore', ID, '9');
    expect(run.code).toBe(1);
    expect(run.err).toContain('no version 9 of policy');
  });
});
