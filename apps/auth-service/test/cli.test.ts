import type { Express } from 'express';
import jwt from 'jsonwebtoken';
import { dropDatabase, unusedDatabaseUrl } from '@custos/test-kit';
import { runCli } from '../src/cli';
import { countRows, testEnv, tokenFor, type TestEnv } from './helpers';

let env: TestEnv;
let app: Express;

beforeAll(async () => {
  env = await testEnv();
  app = await env.app({ rateLimit: { limit: 1000 } });
});

afterAll(async () => {
  await env.close();
});

interface Run {
  code: number;
  out: string;
  err: string;
}

async function cli(args: string[], databaseUrl = env.database.url): Promise<Run> {
  let out = '';
  let err = '';
  const code = await runCli(args, { DATABASE_URL: databaseUrl }, { out: (line) => (out += `${line}\n`), err: (line) => (err += `${line}\n`) });
  return { code, out, err };
}

const field = (text: string, name: string) => new RegExp(`^${name}:\\s+(\\S+)$`, 'm').exec(text)?.[1];

describe('clients CLI', () => {
  it('prints its usage; wrong command lines exit 2 without touching the database', async () => {
    expect(await cli([])).toMatchObject({ code: 2, out: expect.stringContaining('usage: npm run clients') });
    expect(await cli(['--help'])).toMatchObject({ code: 0, out: expect.stringContaining('rotate-key') });
    expect(await cli(['frobnicate'])).toMatchObject({ code: 2, err: expect.stringContaining('unknown command `frobnicate`') });
    expect(await cli(['create', '--solution', 'acme'])).toMatchObject({ code: 2, err: expect.stringMatching(/solution/) });
    expect(await cli(['delete'])).toMatchObject({ code: 2, err: expect.stringContaining('one client id') });
    expect(await cli(['rotate-key', '--activate-in', 'soon'])).toMatchObject({ code: 2 });
  });

  it('creates a restricted client whose secret works once, shown only in this output', async () => {
    const created = await cli(['create', '--solutions', 'acme', '--scopes', 'event:decide,policy:read', '--description', 'hr portal pep']);
    expect(created.code).toBe(0);
    const id = field(created.out, 'client_id')!;
    const secret = field(created.out, 'client_secret')!;
    expect(id).toMatch(/^c_[A-Za-z0-9_-]{22}$/);
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(created.err).toMatch(/shown only now/);
    const claims = jwt.decode(await tokenFor(app, id, secret)) as jwt.JwtPayload;
    expect(claims).toMatchObject({ sub: id, scope: 'event:decide policy:read', solutions: ['acme'] });

    const listed = await cli(['list']);
    expect(listed.out).toContain(id);
    expect(listed.out).toContain('"hr portal pep"');
    expect(listed.out).not.toContain(secret);
    const stored = await env.pool.query<{ secret_hash: string }>('SELECT secret_hash FROM auth.clients WHERE id = $1', [id]);
    expect(stored.rows[0]!.secret_hash).toMatch(/^scrypt\$/);
  });

  it('--json answers like the admin API', async () => {
    const created = await cli(['create', '--solutions', 'beta', '--solutions', 'gamma', '--scopes', 'component:read', '--json']);
    expect(created.code).toBe(0);
    const body = JSON.parse(created.out) as Record<string, unknown>;
    expect(body).toMatchObject({ solutions: ['beta', 'gamma'], scopes: ['component:read'], description: '' });
    expect(Object.keys(body).sort()).toEqual(['client_id', 'client_secret', 'created_at', 'description', 'scopes', 'solutions', 'updated_at']);
    const listed = JSON.parse((await cli(['list', '--json'])).out) as Array<Record<string, unknown>>;
    expect(listed.find((c) => c.client_id === body.client_id)).toEqual({ ...body, client_secret: undefined });
  });

  it('refuses invalid clients with every problem, storing nothing', async () => {
    const before = await countRows(env.pool, 'auth.clients');
    for (const args of [
      ['create', '--solutions', 'ACME', '--scopes', 'event:decide'],
      ['create', '--solutions', 'acme', '--scopes', 'event:explain'],
      ['create', '--solutions', 'acme'],
      ['create', '--scopes', 'event:decide'],
      ['create', '--solutions', '*,acme', '--scopes', 'event:decide'],
      ['create', '--solutions', 'acme\u0000', '--scopes', 'event:decide'],
    ]) {
      const run = await cli(args);
      expect(run.code).toBe(1);
      expect(run.err).toMatch(/^error: the client is not valid\n {2}(solutions|scopes)/);
      expect(run.out).toBe('');
    }
    expect(await countRows(env.pool, 'auth.clients')).toBe(before);
  });

  it('rotate-secret: the old secret stops working at once', async () => {
    const created = await cli(['create', '--solutions', 'acme', '--scopes', 'event:decide']);
    const id = field(created.out, 'client_id')!;
    const oldSecret = field(created.out, 'client_secret')!;
    const rotated = await cli(['rotate-secret', id]);
    expect(rotated.code).toBe(0);
    const newSecret = field(rotated.out, 'client_secret')!;
    expect(newSecret).not.toBe(oldSecret);
    await expect(tokenFor(app, id, oldSecret)).rejects.toThrow(/401/);
    await expect(tokenFor(app, id, newSecret)).resolves.toMatch(/\./);
    expect(await cli(['rotate-secret', 'c_unknown'])).toMatchObject({ code: 1, err: 'no client `c_unknown`\n' });
  });

  it('delete: the client gets no more tokens; unknown and malformed ids are refused', async () => {
    const created = JSON.parse((await cli(['create', '--solutions', 'acme', '--scopes', 'event:decide', '--json'])).out) as {
      client_id: string;
      client_secret: string;
    };
    const deleted = await cli(['delete', created.client_id]);
    expect(deleted).toMatchObject({ code: 0, out: `deleted ${created.client_id}\n` });
    expect(deleted.err).toMatch(/expire/);
    await expect(tokenFor(app, created.client_id, created.client_secret)).rejects.toThrow(/401/);
    expect(await cli(['delete', created.client_id, '--json'])).toMatchObject({ code: 1, out: 'false\n' });
    expect((await cli(['delete', 'a\u0000b'])).code).toBe(1);
  });

  it('records every change of a client in the audit trail, by the operating-system user, as the admin API does', async () => {
    const created = await cli(['create', '--solutions', 'acme', '--scopes', 'event:decide']);
    const id = field(created.out, 'client_id')!;
    expect((await cli(['rotate-secret', id, '--revoke-tokens'])).code).toBe(0);
    expect((await cli(['delete', id])).code).toBe(0);
    expect((await cli(['delete', id])).code).toBe(1);
    const records = await env.pool.query<{ who: string; operation: string; outcome: string }>(
      'SELECT who, operation, outcome FROM auth.audit_records WHERE target = $1 ORDER BY seq',
      [id],
    );
    expect(records.rows.map((row) => [row.operation, row.outcome])).toEqual([
      ['client.create', 'accepted'],
      ['client.rotate-secret', 'accepted'],
      ['client.delete', 'accepted'],
    ]);
    for (const row of records.rows) expect(row.who).toMatch(/^cli(:.+)?$/);
  });

  it('reads a key id that begins with a dash as a value, not an option', async () => {
    // Key ids are base64url thumbprints; about one in 32 begins with `-`.
    const answer = await cli(['retire-key', '-bNUdOpu313oHmSRlcdd1K3WDX9GWdaNQzYITqtm1Hw']);
    expect(answer).toMatchObject({ code: 1, err: expect.stringContaining('no published key `-bNUdOpu313oHmSRlcdd1K3WDX9GWdaNQzYITqtm1Hw`') });
  });

  it('rotate-key, keys and retire-key', async () => {
    const rotated = JSON.parse((await cli(['rotate-key', '--activate-in', '0', '--json'])).out) as {
      key: { kid: string; state: string };
      retiring: Array<{ kid: string; retires_at: string }>;
    };
    expect(rotated.key.state).toBe('active');
    expect(rotated.retiring).toHaveLength(1);
    const keys = JSON.parse((await cli(['keys', '--json'])).out) as Array<{ kid: string; state: string }>;
    expect(keys.map((k) => [k.kid, k.state])).toEqual([
      [rotated.key.kid, 'active'],
      [rotated.retiring[0]!.kid, 'retiring'],
    ]);
    expect(await cli(['retire-key', rotated.key.kid])).toMatchObject({ code: 1, err: expect.stringContaining('rotate-key --activate-in 0') });
    const retired = await cli(['retire-key', rotated.retiring[0]!.kid]);
    expect(retired.code).toBe(0);
    expect(retired.out).toMatch(/retired/);
    const human = await cli(['rotate-key']);
    expect(human.out).toMatch(/^new key: {2}\S+ {2}pending/m);
    expect(human.out).toMatch(/^retiring: \S+ {2}retiring {2}activates \S+ {2}retires \S+$/m);
  });

  it('creates and migrates a database that does not exist yet', async () => {
    const { url, name } = unusedDatabaseUrl('custos_cli');
    try {
      expect(await cli(['list'], url)).toMatchObject({ code: 0, err: 'no clients\n' });
      expect(await cli(['keys'], url)).toMatchObject({ code: 0, err: expect.stringContaining('no signing keys yet') });
      const created = await cli(['create', '--solutions', '*', '--scopes', 'client:admin'], url);
      expect(created.code).toBe(0);
      expect((await cli(['list'], url)).out).toContain(field(created.out, 'client_id')!);
    } finally {
      await dropDatabase(name);
    }
  });

  it('reports an unreachable database without its URL', async () => {
    const run = await cli(['list'], 'postgres://postgres:hunter2@127.0.0.1:1/custos');
    expect(run.code).toBe(1);
    expect(run.err).toMatch(/^error: /);
    expect(run.err).not.toContain('hunter2');
  });
});
