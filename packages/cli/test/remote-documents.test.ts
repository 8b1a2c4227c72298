import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sessionPath } from '../src/remote/config-store';
import { closedPort, problemReply, startServer, type Reply, type TestServer } from './remote-support/http-server';
import { loggedIn, runCli, tempConfig } from './remote-support/run-cli';

const POLICY = `<?xml version="1.0"?>\n<policy xmlns="http://www.mydata-control.de/4.0/mydataLanguage" id="urn:policy:acme:p">\n  <mechanism event="urn:action:acme:a"/>\n</policy>\n`;

describe('policy, timer and component commands', () => {
  let pap: TestServer;
  let reply: Reply;
  let config: Awaited<ReturnType<typeof tempConfig>>;
  let files: string;

  beforeEach(async () => {
    reply = { json: true };
    pap = await startServer(() => reply);
    config = await tempConfig();
    await loggedIn(config.env, { pap: pap.url });
    files = await mkdtemp(path.join(tmpdir(), 'custos-cli-files-'));
  });

  afterEach(async () => {
    await pap.close();
    await config.cleanup();
    await rm(files, { recursive: true, force: true });
  });

  const file = async (name: string, text: string) => {
    const full = path.join(files, name);
    await writeFile(full, text);
    return full;
  };
  const cli = (...args: string[]) => runCli(args, { env: config.env });

  it('adds a policy by sending the file as written, with the token, and names the id from Location', async () => {
    reply = { status: 201, json: true, headers: { Location: '/ws/policy/urn:policy:acme:p' } };
    const run = await cli('policy', 'add', await file('p.xml', POLICY));
    expect(run).toMatchObject({ code: 0, out: 'added urn:policy:acme:p\n', err: '' });
    expect(pap.requests[0]).toMatchObject({ method: 'POST', url: '/ws/policy', body: POLICY });
    expect(pap.requests[0]?.headers).toMatchObject({ authorization: 'Bearer token-for-tests', 'content-type': 'application/xml' });
  });

  it('prints a refused policy as file:line:column lines and exits 1', async () => {
    reply = problemReply(400, 'invalid_policy', 'the policy is not valid: 2 problems', [
      { message: 'element `equal` is not allowed here', line: 3, column: 5 },
      { message: 'attribute `event`: unknown action', line: 3, column: 14 },
    ]);
    const name = await file('bad.xml', POLICY);
    const run = await cli('policy', 'add', name);
    expect(run).toMatchObject({
      code: 1,
      out: '',
      err: `${name}:3:5: element \`equal\` is not allowed here\n${name}:3:14: attribute \`event\`: unknown action\n`,
    });
  });

  it('replaces the policy the file names and prints the revision pap answered, remembering it', async () => {
    reply = { json: true, headers: { 'Policy-Revision': '12' } };
    const run = await cli('policy', 'replace', await file('p.xml', POLICY));
    expect(run).toMatchObject({ code: 0, out: 'replaced urn:policy:acme:p (policy revision 12)\n' });
    expect(pap.requests[0]).toMatchObject({ method: 'PUT', url: '/ws/policy/urn:policy:acme:p', body: POLICY });
    expect(JSON.parse(await readFile(sessionPath(config.env), 'utf8'))).toMatchObject({ lastRevision: 12 });
  });

  it('refuses to replace from a file without an id or of the other kind, before asking pap', async () => {
    expect(await cli('policy', 'replace', await file('x.xml', '<policy/>'))).toMatchObject({ code: 2 });
    const timerFile = await file('t.xml', '<timer id="urn:timer:acme:t"/>');
    expect(await cli('policy', 'replace', timerFile)).toMatchObject({
      code: 2,
      err: 'error: `urn:timer:acme:t` is not a policy id; expected `urn:policy:<solution>:<name>`\n',
    });
    expect(pap.requests).toHaveLength(0);
  });

  it('says that a file cannot be read (exit 2)', async () => {
    const missing = path.join(files, 'missing.xml');
    expect(await cli('policy', 'add', missing)).toMatchObject({ code: 2, err: `error: cannot read \`${missing}\`: no such file\n` });
  });

  it('deploys, and exits 1 when there is no such policy', async () => {
    reply = { json: true, headers: { 'Policy-Revision': '3' } };
    expect(await cli('policy', 'deploy', 'urn:policy:acme:p')).toMatchObject({ code: 0, out: 'deployed urn:policy:acme:p (policy revision 3)\n' });
    expect(pap.requests[0]).toMatchObject({ method: 'POST', url: '/ws/policy/urn:policy:acme:p/deploy' });
    reply = { json: false, headers: { 'Policy-Revision': '3' } };
    expect(await cli('policy', 'deploy', 'urn:policy:acme:q')).toMatchObject({ code: 1, out: '', err: 'no policy `urn:policy:acme:q`\n' });
  });

  it('revokes, and leaves a policy that was not deployed as it is (exit 0)', async () => {
    reply = { json: true, headers: { 'Policy-Revision': '4' } };
    expect(await cli('timer', 'revoke', 'urn:timer:acme:t')).toMatchObject({ code: 0, out: 'revoked urn:timer:acme:t (policy revision 4)\n' });
    expect(pap.requests[0]).toMatchObject({ method: 'POST', url: '/ws/timer/urn:timer:acme:t/revoke' });
    reply = { json: false, headers: { 'Policy-Revision': '4' } };
    expect(await cli('timer', 'revoke', 'urn:timer:acme:t')).toMatchObject({ code: 0, out: 'urn:timer:acme:t was not deployed; nothing changed\n' });
  });

  it('removes, and exits 1 when there is no such timer', async () => {
    reply = { json: true, headers: { 'Policy-Revision': '5' } };
    expect(await cli('timer', 'remove', 'urn:timer:acme:t')).toMatchObject({ code: 0, out: 'removed urn:timer:acme:t (policy revision 5)\n' });
    expect(pap.requests[0]).toMatchObject({ method: 'DELETE', url: '/ws/timer/urn:timer:acme:t' });
    reply = { json: false };
    expect(await cli('timer', 'remove', 'urn:timer:acme:t')).toMatchObject({ code: 1, err: 'no timer `urn:timer:acme:t`\n' });
  });

  it('shows the stored XML, or the resource as JSON', async () => {
    reply = { text: POLICY };
    expect(await cli('policy', 'show', 'urn:policy:acme:p')).toMatchObject({ code: 0, out: POLICY });
    expect(pap.requests[0]?.headers.accept).toBe('application/xml');
    reply = { json: { id: { identifier: 'urn:policy:acme:p' }, deployed: true } };
    const json = await cli('policy', 'show', 'urn:policy:acme:p', '--json');
    expect(JSON.parse(json.out)).toEqual({ id: { identifier: 'urn:policy:acme:p' }, deployed: true });
  });

  it('reports status and lists ids with their deployed state', async () => {
    reply = { json: false };
    expect(await cli('policy', 'status', 'urn:policy:acme:p')).toMatchObject({ code: 0, out: 'not deployed\n' });
    await pap.close();
    pap = await startServer((request) =>
      request.url.endsWith('/deployed')
        ? { json: [{ identifier: 'urn:policy:acme:long-name' }] }
        : { json: [{ identifier: 'urn:policy:acme:a' }, { identifier: 'urn:policy:acme:long-name' }] },
    );
    await loggedIn(config.env, { pap: pap.url });
    expect((await cli('policy', 'list')).out).toBe('urn:policy:acme:a          not deployed\nurn:policy:acme:long-name  deployed\n');
    expect((await cli('policy', 'list', '--deployed')).out).toBe('urn:policy:acme:long-name  deployed\n');
    expect(JSON.parse((await cli('policy', 'list', '--json')).out)).toEqual([
      { identifier: 'urn:policy:acme:a', deployed: false },
      { identifier: 'urn:policy:acme:long-name', deployed: true },
    ]);
  });

  it('refuses an id of the wrong kind without asking pap', async () => {
    expect(await cli('policy', 'deploy', 'urn:timer:acme:t')).toMatchObject({ code: 2 });
    expect(pap.requests).toHaveLength(0);
  });

  it('registers a component from a file sent as written, and points into it when pap finds a syntax error', async () => {
    const text = '{ "id": { "componentType": "PIP", "identifier": "urn:component:acme:pip:hr" },\n  "urls": [] }\n';
    reply = { json: true, headers: { 'Policy-Revision': '2' } };
    const ok = await cli('component', 'register', await file('c.json', text));
    expect(ok).toMatchObject({ code: 0, out: 'registered urn:component:acme:pip:hr (policy revision 2)\n' });
    expect(pap.requests[0]).toMatchObject({ method: 'POST', url: '/ws/component', body: text });
    reply = problemReply(400, 'malformed_json', 'the body is not valid JSON', [{ message: 'unexpected token `}`', line: 2, column: 3 }]);
    const bad = await file('bad.json', '{\n  }x');
    expect(await cli('component', 'register', bad)).toMatchObject({ code: 1, err: `${bad}:2:3: unexpected token \`}\`\n` });
  });

  it("prints pap's warnings about a registered component on stderr, located by path", async () => {
    reply = {
      json: true,
      headers: {
        'Custos-Warning': '"a pdp with the default egress policy does not call this url: `10.0.0.1` is not public";code="egress_refused_by_default";path="urls[1]", "second";code="x"',
      },
    };
    const name = await file('c.json', '{ "id": { "componentType": "PIP", "identifier": "urn:component:acme:pip:hr" } }');
    const run = await cli('component', 'register', name);
    expect(run).toMatchObject({
      code: 0,
      out: 'registered urn:component:acme:pip:hr\n',
      err: `warning: ${name}: urls[1]: a pdp with the default egress policy does not call this url: \`10.0.0.1\` is not public\nwarning: ${name}: second\n`,
    });
  });

  it('shows and lists components', async () => {
    const component = { id: { componentType: 'PEP', identifier: 'urn:component:acme:pep:web' }, urls: ['http://a', 'http://b'] };
    reply = { json: component };
    expect(JSON.parse((await cli('component', 'show', 'urn:component:acme:pep:web')).out)).toEqual(component);
    expect(pap.requests[0]?.url).toBe('/ws/component/urn:component:acme:pep:web');
    reply = { json: [component] };
    expect((await cli('component', 'list', '--type', 'pep')).out).toBe('PEP  urn:component:acme:pep:web  http://a http://b\n');
    expect(pap.requests[1]?.url).toBe('/ws/component?type=PEP');
    expect(await cli('component', 'list', '--type', 'PDP')).toMatchObject({ code: 2, err: 'error: --type: `PDP` is not one of PEP, PIP, PXP\n' });
  });

  it('prints other refusals with detail, status and code, and a problem with the token with a hint', async () => {
    reply = problemReply(409, 'conflict', 'a policy `urn:policy:acme:p` exists already; replace it with PUT');
    expect((await cli('policy', 'add', await file('p.xml', POLICY))).err).toBe(
      'pap: a policy `urn:policy:acme:p` exists already; replace it with PUT (409 conflict)\n',
    );
    reply = problemReply(401, 'invalid_token', 'the token is not valid');
    expect(await cli('policy', 'list')).toMatchObject({
      code: 1,
      err: 'pap: the token is not valid (401 invalid_token)\nthe token was not accepted; run `custos login` again\n',
    });
  });

  it('says in one sentence that pap cannot be reached (exit 2)', async () => {
    const port = await closedPort();
    await loggedIn(config.env, { pap: `http://127.0.0.1:${port}` });
    expect(await cli('policy', 'status', 'urn:policy:acme:p')).toMatchObject({
      code: 2,
      out: '',
      err: `error: cannot reach pap at http://127.0.0.1:${port}: connection refused\n`,
    });
  });
});
