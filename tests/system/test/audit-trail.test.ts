import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import type { AuditPage, AuditRecord } from '@custos/contracts';
import { ADMIN_ID, ADMIN_SECRET, call, clientToken, repoRoot, startStack, TEST_NATS_URL, waitFor, type Stack } from '@custos/test-kit';
import { inhibitAll } from './policies';

const run = promisify(execFile);
const cli = path.join(repoRoot(), 'packages', 'cli', 'bin', 'custos.js');

/**
 * The audit trail of management (issue 24, item 3) with auth and pap as processes on PostgreSQL: accepted changes,
 * refused attempts (wrong scope, bad input) and failed ones, read through pap's `GET /ws/audit` (auth's records
 * merged in) and the built CLI; a change whose transaction fails after its record leaves neither; retention.
 */
describe('audit trail', () => {
  let stack: Stack;
  let admin: string;
  let reader: { id: string; token: string };
  let db: Client;
  let configDir: string;

  beforeAll(async () => {
    stack = await startStack({ natsUrl: TEST_NATS_URL, replicas: 0, extraEnv: { AUDIT_RETENTION_DAYS: '1', AUDIT_PRUNE_INTERVAL_SECONDS: '1' } });
    admin = await stack.adminToken();
    const created = await call('POST', `${stack.auth.url}/clients`, { token: admin, json: { solutions: ['acme'], scopes: ['policy:read'], description: 'reads only' } });
    expect(created.status).toBe(201);
    const id = created.body.client_id as string;
    reader = { id, token: await clientToken(stack.auth.url, id, created.body.client_secret as string) };
    db = new Client({ connectionString: stack.database.url });
    await db.connect();
    configDir = await mkdtemp(path.join(tmpdir(), 'custos-audit-'));
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await stack?.stop();
    if (configDir) await rm(configDir, { recursive: true, force: true });
  }, 60_000);

  const audit = async (query: Record<string, string>, token = admin): Promise<AuditPage> => {
    const answer = await call('GET', `${stack.pap.url}/ws/audit?${new URLSearchParams(query).toString()}`, { token });
    expect(answer.status).toBe(200);
    return answer.body as unknown as AuditPage;
  };
  /** The records of `query` once there are `count` of them (refusals are recorded just after their answer). */
  const recordsOf = (query: Record<string, string>, count = 1): Promise<AuditRecord[]> =>
    waitFor(async () => {
      const page = await audit(query);
      return page.records.length >= count && page.records;
    }, { what: `audit records of ${JSON.stringify(query)}` });

  it('records the client auth created, and a reader refused for the scope it lacks', async () => {
    const [created] = await recordsOf({ operation: 'client.create', target: reader.id });
    expect(created).toMatchObject({ service: 'auth', who: ADMIN_ID, outcome: 'accepted', status: 201, target: reader.id });

    const refused = await call('POST', `${stack.pap.url}/ws/policy`, { token: reader.token, xml: inhibitAll('acme', 'refused', 'print'), headers: { 'X-Request-Id': 'audit-refused-1' } });
    expect(refused.status).toBe(403);
    const [record] = await recordsOf({ who: reader.id });
    expect(record).toMatchObject({ service: 'pap', operation: 'policy.add', outcome: 'refused', status: 403, requestId: 'audit-refused-1', revision: null });
    expect(record?.reason).toMatch(/^insufficient_scope: /);
    expect(record?.address).toMatch(/127\.0\.0\.1$/);

    // Reading the trail needs audit:read.
    expect((await call('GET', `${stack.pap.url}/ws/audit`, { token: reader.token })).status).toBe(403);
    expect((await call('GET', `${stack.auth.url}/audit`, { token: reader.token })).status).toBe(403);
  }, 30_000);

  it('records bad input as refused, with the problem that refused it', async () => {
    const bad = await call('POST', `${stack.pap.url}/ws/policy`, { token: admin, xml: '<policy', headers: { 'X-Request-Id': 'audit-bad-input' } });
    expect(bad.status).toBe(400);
    const [record] = await recordsOf({ outcome: 'refused', who: ADMIN_ID, operation: 'policy.add' });
    expect(record).toMatchObject({ requestId: 'audit-bad-input', status: 400, target: null });
    expect(record?.reason).toMatch(new RegExp(`^${String(bad.body.code)}: `));
  }, 30_000);

  it('records accepted changes with the revision they took, through the API and the CLI', async () => {
    const id = 'urn:policy:acme:audited';
    expect((await call('POST', `${stack.pap.url}/ws/policy`, { token: admin, xml: inhibitAll('acme', 'audited', 'print') })).status).toBe(201);
    const deployed = await call('POST', `${stack.pap.url}/ws/policy/${id}/deploy`, { token: admin, headers: { 'X-Request-Id': 'audit-deploy' } });
    expect(deployed.status).toBe(200);
    const revision = Number(deployed.headers.get('policy-revision'));

    const page = await audit({ target: id, outcome: 'accepted' });
    expect(page.records.map((record) => [record.operation, record.revision])).toEqual([
      ['policy.deploy', revision],
      ['policy.add', null],
    ]);
    expect(page.records[0]).toMatchObject({ who: ADMIN_ID, requestId: 'audit-deploy', status: 200 });

    // Paging: one record a page, the cursor leading from the deploy to the add.
    const first = await audit({ target: id, limit: '1' });
    expect(first.records.map((record) => record.operation)).toEqual(['policy.deploy']);
    expect(first.next).not.toBeNull();
    const second = await audit({ target: id, limit: '1', cursor: first.next ?? '' });
    expect(second.records.map((record) => record.operation)).toEqual(['policy.add']);

    // One trail, both services: auth's client.create and pap's policy records, newest first.
    const merged = await audit({ who: ADMIN_ID, outcome: 'accepted' });
    expect(new Set(merged.records.map((record) => record.service))).toEqual(new Set(['pap', 'auth']));
    expect(merged.incomplete).toEqual([]);

    await run('bash', ['-c', `printf '%s\\n' "$SECRET" | node "$CLI" login --auth-url "$AUTH" --pap-url "$PAP" --pdp-url "$PAP" --client-id "$ID" --client-secret-stdin`], {
      env: { ...process.env, CUSTOS_CONFIG_DIR: configDir, CLI: cli, SECRET: ADMIN_SECRET, ID: ADMIN_ID, AUTH: stack.auth.url, PAP: stack.pap.url },
      timeout: 30_000,
    });
    const env = { ...process.env, CUSTOS_CONFIG_DIR: configDir };
    const printed = (await run('node', [cli, 'audit', '--target', id], { env, timeout: 30_000 })).stdout.trimEnd().split('\n');
    expect(printed).toHaveLength(2);
    expect(printed[0]).toContain(`accepted 200  ${ADMIN_ID}  policy.deploy ${id} @${revision}`);
    expect(printed[1]).toContain(`policy.add ${id}`);
    const json = JSON.parse((await run('node', [cli, 'audit', '--who', reader.id, '--json'], { env, timeout: 30_000 })).stdout) as AuditPage;
    expect(json.records.map((record) => [record.operation, record.outcome])).toEqual([['policy.add', 'refused']]);
  }, 60_000);

  it('leaves neither the change nor its record when the transaction fails after the record was written', async () => {
    // A trigger that fails the transaction once the accepted record is in it: what a failed commit would do.
    await db.query(`
      CREATE FUNCTION public.fail_audited() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'failing after the audit record of %', NEW.operation; END $$;
      CREATE TRIGGER fail_pap AFTER INSERT ON pap.audit_records FOR EACH ROW
        WHEN (NEW.outcome = 'accepted' AND NEW.target = 'urn:policy:acme:doomed') EXECUTE FUNCTION public.fail_audited();
      CREATE TRIGGER fail_auth AFTER INSERT ON auth.audit_records FOR EACH ROW
        WHEN (NEW.outcome = 'accepted' AND NEW.operation = 'client.create') EXECUTE FUNCTION public.fail_audited();`);
    try {
      const added = await call('POST', `${stack.pap.url}/ws/policy`, { token: admin, xml: inhibitAll('acme', 'doomed', 'print') });
      expect(added.status).toBe(500);
      expect((await call('GET', `${stack.pap.url}/ws/policy/urn:policy:acme:doomed`, { token: admin })).status).toBe(404);
      const [failed] = await recordsOf({ target: 'urn:policy:acme:doomed' });
      expect(failed).toMatchObject({ outcome: 'failed', status: 500, operation: 'policy.add' });
      expect((await audit({ target: 'urn:policy:acme:doomed', outcome: 'accepted' })).records).toEqual([]);

      const before = (await call('GET', `${stack.auth.url}/clients`, { token: admin })).body as unknown as unknown[];
      const created = await call('POST', `${stack.auth.url}/clients`, { token: admin, json: { solutions: ['acme'], scopes: ['policy:read'] } });
      expect(created.status).toBe(500);
      expect((await call('GET', `${stack.auth.url}/clients`, { token: admin })).body).toHaveLength(before.length);
      await recordsOf({ operation: 'client.create', outcome: 'failed' });
    } finally {
      await db.query('DROP TRIGGER fail_pap ON pap.audit_records; DROP TRIGGER fail_auth ON auth.audit_records; DROP FUNCTION public.fail_audited()');
    }
  }, 30_000);

  it('still refuses, and counts, when the record of a refusal cannot be written', async () => {
    await db.query(`
      CREATE FUNCTION public.fail_refusal() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no record'; END $$;
      CREATE TRIGGER fail_refusal BEFORE INSERT ON pap.audit_records FOR EACH ROW
        WHEN (NEW.outcome = 'refused' AND NEW.target = 'urn:policy:acme:unrecorded') EXECUTE FUNCTION public.fail_refusal();`);
    try {
      const counted = async () => {
        const text = await (await fetch(`${stack.pap.url}/metrics`)).text();
        return Number(/^audit_records_failed_total(?:\{[^}]*\})? (\d+)/m.exec(text)?.[1] ?? 0);
      };
      const before = await counted();
      const refused = await call('DELETE', `${stack.pap.url}/ws/policy/urn:policy:acme:unrecorded`, { token: reader.token });
      expect(refused.status).toBe(403);
      await waitFor(async () => (await counted()) === before + 1, { what: 'the unrecorded refusal counted' });
      expect((await audit({ target: 'urn:policy:acme:unrecorded' })).records).toEqual([]);
    } finally {
      await db.query('DROP TRIGGER fail_refusal ON pap.audit_records; DROP FUNCTION public.fail_refusal()');
    }
  }, 30_000);

  it('deletes records past AUDIT_RETENTION_DAYS and keeps the others', async () => {
    for (const schema of ['pap', 'auth']) {
      await db.query(
        `INSERT INTO ${schema}.audit_records (at, who, operation, target, outcome, status) VALUES (now() - interval '2 days', 'old', 'policy.add', 'old-${schema}', 'accepted', 201)`,
      );
    }
    const kept = (await audit({ who: ADMIN_ID })).records.length;
    expect(kept).toBeGreaterThan(0);
    await waitFor(async () => {
      const { rows } = await db.query<{ n: string }>(`SELECT (SELECT count(*) FROM pap.audit_records WHERE who = 'old') + (SELECT count(*) FROM auth.audit_records WHERE who = 'old') AS n`);
      return rows[0]?.n === '0';
    }, { what: 'the old records deleted' });
    expect((await audit({ who: ADMIN_ID })).records.length).toBe(kept);
  }, 30_000);
});
