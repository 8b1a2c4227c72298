import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { DecisionRecordsAnswer, DecisionRecordWire } from '@custos/contracts';
import { call, repoRoot, startStack, TEST_NATS_URL, waitFor, type RunningService, type Stack } from '@custos/test-kit';
import { deploy } from './pep-support';
import { event, inhibitAll } from './policies';

const run = promisify(execFile);
const cli = path.join(repoRoot(), 'packages', 'cli', 'bin', 'custos.js');

/**
 * Decision records (issue 24) end to end: auth, pap and two pdp processes on real PostgreSQL and NATS. A decision a
 * pdp answered is found by its decision id through pap's routes and through the built `custos decisions`; records
 * carry parameters only where the solution opted in.
 */
describe('decision records across replicas', () => {
  let stack: Stack;
  let token: string;
  let scratch: string;
  let revision: number;

  beforeAll(async () => {
    // Records on (they are off by default) with a short flush so they reach the stream soon.
    stack = await startStack({ natsUrl: TEST_NATS_URL, replicas: 2, admin: { id: 'admin', secret: 'change-me-now-0123' }, extraEnv: { PDP_DECISION_RECORDS: 'on', PDP_DECISION_RECORDS_FLUSH_MS: '20' } });
    token = await stack.adminToken();
    revision = await deploy(stack, token, inhibitAll('acme', 'no-delete', 'delete'));
    scratch = await mkdtemp(path.join(tmpdir(), 'custos-decisions-'));
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    if (scratch) await rm(scratch, { recursive: true, force: true });
  }, 60_000);

  const pdp = (index: number): RunningService => {
    const found = stack.pdps[index];
    if (found === undefined) throw new Error(`no pdp ${index}`);
    return found;
  };
  const decide = async (index: number, solution: string, action: string, parameters: Array<{ name: string; value: unknown }> = [], minRevision = revision) => {
    const answer = await call('POST', `${pdp(index).url}/event`, { token, json: event(solution, action, parameters), headers: { 'Min-Policy-Revision': String(minRevision) } });
    expect(answer.status).toBe(200);
    return { id: (answer.body.id as { identifier: string }).identifier, allowed: answer.body.eventAllowed as boolean };
  };
  const recordOf = async (decisionId: string): Promise<DecisionRecordWire> =>
    waitFor(
      async () => {
        const answer = await call('GET', `${stack.pap.url}/ws/decisions/${decisionId}`, { token });
        return answer.status === 200 ? (answer.body as unknown as DecisionRecordWire) : undefined;
      },
      { what: `the record of ${decisionId}`, timeoutMs: 20_000 },
    );
  const cliRun = async (args: string[]) => {
    const env = { ...process.env, CUSTOS_CONFIG_DIR: path.join(scratch, 'config') };
    return run('node', [cli, ...args], { env, timeout: 30_000 });
  };

  it("finds a decision each replica made by its id through pap, with what the decision line says and no parameter value", async () => {
    const first = await decide(0, 'acme', 'delete', [{ name: 'user', value: 'mallory-secret' }]);
    const second = await decide(1, 'acme', 'read');
    expect(first.allowed).toBe(false);
    expect(second.allowed).toBe(true);

    const inhibited = await recordOf(first.id);
    expect(inhibited).toMatchObject({
      decisionId: first.id,
      solution: 'acme',
      action: 'urn:action:acme:delete',
      allowed: false,
      decided: true,
      matchedPolicies: ['urn:policy:acme:no-delete'],
      revision,
      clientId: 'admin',
      explain: false,
    });
    expect(inhibited.parameters).toBeUndefined();
    expect(JSON.stringify(inhibited)).not.toContain('mallory-secret');
    const allowed = await recordOf(second.id);
    expect(allowed).toMatchObject({ decisionId: second.id, allowed: true, action: 'urn:action:acme:read' });
    // Each record names the replica that decided, and the two replicas are two.
    expect(inhibited.replicaId).not.toBe(allowed.replicaId);

    const search = await call('GET', `${stack.pap.url}/ws/decisions?solution=acme&outcome=inhibit&action=urn:action:acme:delete`, { token });
    expect(search.status).toBe(200);
    const ids = (search.body as unknown as DecisionRecordsAnswer).records.map((record) => record.decisionId);
    expect(ids).toContain(first.id);
    expect(ids).not.toContain(second.id);
  }, 60_000);

  it('carries listed parameters in clear and the others hashed once the solution opts in', async () => {
    const put = await call('PUT', `${stack.pap.url}/ws/solutions/beta/settings`, { token, json: { recordParameters: { clear: ['doc'], hashed: true } } });
    expect(put.status).toBe(200);
    const settingsRevision = put.body.revision as number;
    const decided = await decide(0, 'beta', 'read', [{ name: 'doc', value: 'report-7' }, { name: 'user', value: 'ann' }], settingsRevision);
    const record = await recordOf(decided.id);
    expect(record.parameters?.find((p) => p.name === 'doc')?.value?.value).toBe('report-7');
    const user = record.parameters?.find((p) => p.name === 'user');
    expect(user?.hash).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(user?.value).toBeUndefined();
    expect(record.complete).toBe(false);
  }, 60_000);

  it('finds a decision by its id with the built `custos decisions`, and searches by solution and outcome', async () => {
    const decided = await decide(1, 'acme', 'delete');
    await recordOf(decided.id);
    await run('bash', ['-c', `printf '%s\\n' change-me-now-0123 | node "$CLI" login --auth-url "$AUTH" --pap-url "$PAP" --pdp-url "$PDP" --client-id admin --client-secret-stdin`], {
      env: { ...process.env, CLI: cli, AUTH: stack.auth.url, PAP: stack.pap.url, PDP: pdp(0).url, CUSTOS_CONFIG_DIR: path.join(scratch, 'config') },
      timeout: 30_000,
    });
    const shown = await cliRun(['decisions', '--id', decided.id, '--json']);
    expect((JSON.parse(shown.stdout) as DecisionRecordWire).decisionId).toBe(decided.id);
    const line = await cliRun(['decisions', '--id', decided.id]);
    expect(line.stdout).toContain(`${decided.id} acme urn:action:acme:delete inhibit`);
    const listed = await cliRun(['decisions', '--solution', 'acme', '--outcome', 'inhibit']);
    const lines = listed.stdout.split('\n').filter((text) => text !== '');
    expect(lines.some((text) => text.includes(decided.id))).toBe(true);
    expect(lines.every((text) => text.includes(' acme ') && text.includes(' inhibit'))).toBe(true);
  }, 90_000);

  it('answers a malformed decision id with a 400 and an unknown one with a 404', async () => {
    expect((await call('GET', `${stack.pap.url}/ws/decisions/not-an-id`, { token })).status).toBe(400);
    const unknown = await call('GET', `${stack.pap.url}/ws/decisions/urn:decision:0190f1a2-0000-7000-8000-000000000000`, { token });
    expect(unknown.status).toBe(404);
    expect((await call('GET', `${stack.pap.url}/ws/decisions?from=yesterday`, { token })).status).toBe(400);
  }, 30_000);
});
