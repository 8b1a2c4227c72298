import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EXPLAINED_DECISION_EXAMPLE } from '@custos/contracts';
import { problemReply, startServer, type Reply, type TestServer } from './remote-support/http-server';
import { loggedIn, runCli, tempConfig } from './remote-support/run-cli';

const EVENT = '{ "actionId": { "scope": "acme", "action": "show" },\n  "timestamp": 1, "parameters": [] }\n';
const decision = (eventAllowed: boolean) => ({ id: { identifier: 'urn:decision:1' }, eventAllowed, modifiers: [], delay: 0 });

/** What the pdp's OpenAPI document shows as an explanation, with a bit of everything the wire can carry. */
const EXPLANATION = EXPLAINED_DECISION_EXAMPLE;

describe('decide and explain', () => {
  let pdp: TestServer;
  let reply: Reply;
  let config: Awaited<ReturnType<typeof tempConfig>>;
  let eventFile: string;
  let scratch: string;

  beforeEach(async () => {
    reply = { json: decision(true), headers: { 'Policy-Revision': '7' } };
    pdp = await startServer(() => reply);
    config = await tempConfig();
    await loggedIn(config.env, { pdp: pdp.url });
    scratch = await mkdtemp(path.join(tmpdir(), 'custos-cli-event-'));
    eventFile = path.join(scratch, 'event.json');
    await writeFile(eventFile, EVENT);
  });

  afterEach(async () => {
    await pdp.close();
    await config.cleanup();
    await rm(scratch, { recursive: true, force: true });
  });

  const cli = (args: string[], stdin?: string) => runCli(args, { env: config.env, ...(stdin === undefined ? {} : { stdin }) });

  it('prints the decision and exits 0 when allowed, 1 when inhibited', async () => {
    const allowed = await cli(['decide', eventFile]);
    expect(allowed.code).toBe(0);
    expect(JSON.parse(allowed.out)).toEqual(decision(true));
    expect(pdp.requests[0]).toMatchObject({ method: 'POST', url: '/event', body: EVENT });
    expect(pdp.requests[0]?.headers).toMatchObject({ authorization: 'Bearer token-for-tests', 'content-type': 'application/json' });
    reply = { json: decision(false) };
    const inhibited = await cli(['decide', eventFile]);
    expect(inhibited.code).toBe(1);
    expect(JSON.parse(inhibited.out)).toEqual(decision(false));
  });

  it('reads the event from stdin for -', async () => {
    expect((await cli(['decide', '-'], EVENT)).code).toBe(0);
    expect(pdp.requests[0]?.body).toBe(EVENT);
  });

  it('waits for the last revision this login changed unless told another', async () => {
    await cli(['decide', eventFile]);
    expect(pdp.requests[0]?.headers['min-policy-revision']).toBeUndefined();
    await loggedIn(config.env, { pdp: pdp.url }, { lastRevision: 5 });
    await cli(['decide', eventFile]);
    expect(pdp.requests[1]?.headers['min-policy-revision']).toBe('5');
    await cli(['explain', eventFile, '--min-revision', '8']);
    expect(pdp.requests[2]?.headers['min-policy-revision']).toBe('8');
    expect(await cli(['decide', eventFile, '--min-revision', '-1'])).toMatchObject({ code: 2 });
    expect(pdp.requests).toHaveLength(3);
  });

  it('points into the event file when the pdp refuses it', async () => {
    reply = problemReply(400, 'invalid_event', 'the event does not match the schema', [{ message: 'must be integer', path: 'timestamp' }]);
    expect(await cli(['decide', eventFile])).toMatchObject({ code: 1, out: '', err: 'pdp: the event does not match the schema (400 invalid_event)\n  timestamp: must be integer\n' });
    reply = problemReply(400, 'malformed_json', 'the body is not valid JSON', [{ message: 'unexpected end of input', line: 3, column: 1 }]);
    expect((await cli(['decide', eventFile])).err).toBe(`${eventFile}:3:1: unexpected end of input\n`);
  });

  it('explains as a tree: policies, mechanisms, branches, conditions, modifiers, delay, PIP answers, history, errors', async () => {
    reply = { json: EXPLANATION };
    const run = await cli(['explain', eventFile]);
    expect(pdp.requests[0]).toMatchObject({ method: 'POST', url: '/event/explain', body: EVENT });
    expect(run.code).toBe(0);
    expect(run.out.split('\n')).toEqual([
      'decision: allowed  urn:decision:019ac4a6-1f2e-7c3d-8e4f-5a6b7c8d9e0f  (policy revision 9)',
      'delay: 250 ms, modifiers: 1',
      '  user $.name: replace(value="***")',
      'policies',
      '├─ urn:policy:acme:mask',
      '│  └─ mechanism 1 on urn:action:acme:show: allow',
      '│     ├─ branch taken: elseif #1',
      '│     ├─ conditions',
      '│     │  ├─ if: false',
      '│     │  │  └─ equals(event `user` at `$.id` = "alice", "bob") → false',
      '│     │  └─ elseif #1: true',
      `│     │     └─ less(plus = 5, pip \`urn:info:acme:limit\` = "${'x'.repeat(120)}…" (cut short)) → true`,
      '│     │        └─ plus(count of `urn:action:acme:show` = 4, 1) → 5',
      '│     ├─ modifiers',
      '│     │  └─ user $.name: replace(value="***") — names are private',
      '│     ├─ delay: 250 ms',
      '│     ├─ PIP answers',
      '│     │  └─ urn:info:acme:role(user="u1") = "admin" [cached]',
      '│     ├─ event history',
      '│     │  ├─ count of urn:action:acme:show in [1970-01-01T00:00:00.000Z, 1970-01-01T01:00:00.000Z): 4',
      '│     │  └─ first occurrence of urn:action:acme:login: none (the bound is ignored)',
      '│     └─ executes (after a real decision)',
      '│        └─ urn:action:acme:notify(to="hr")',
      '└─ urn:policy:acme:limit',
      '   └─ mechanism 2 on urn:action:acme:show: error',
      '      ├─ branch taken: none (a condition failed, see error)',
      '      ├─ conditions',
      '      │  └─ if: failed (see error)',
      '      └─ error: the event history is unavailable',
      '',
    ]);
  });

  it('says when no policy had a mechanism for the event, and prints the raw answer with --json', async () => {
    reply = { json: { ...decision(false), explanation: [], policyRevision: 2 } };
    const tree = await cli(['explain', eventFile]);
    expect(tree.out).toBe(
      'decision: inhibited  urn:decision:1  (policy revision 2)\ndelay: 0 ms, modifiers: none\nno deployed policy has a mechanism for this event; the default decision applied\n',
    );
    expect(tree.code).toBe(0);
    reply = { json: { ...decision(false), explanation: [], policyRevision: 3, defaultDecision: { decision: 'inhibit', source: 'solution' } } };
    expect((await cli(['explain', eventFile])).out.split('\n')[2]).toBe("no mechanism decided: the default decided, inhibit (the solution's setting)");
    reply = { json: EXPLANATION };
    expect(JSON.parse((await cli(['explain', eventFile, '--json'])).out)).toEqual(EXPLANATION);
  });
});
