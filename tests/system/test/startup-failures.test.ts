import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client } from 'pg';
import { freePort, repoRoot, startOwnNatsServer, TEST_NATS_URL, TEST_SERVER_URL, type OwnNatsServer, type ServiceName } from '@custos/test-kit';

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a built service until it exits on its own (each case here must end it; jest's timeout catches one that does not). */
function runToExit(name: ServiceName, env: Record<string, string>): Promise<Ended> {
  const inherited = { ...process.env };
  delete inherited.DATABASE_URL;
  delete inherited.NATS_URL;
  const child = spawn(process.execPath, [path.join(repoRoot(), 'apps', name, 'dist', 'main.js')], {
    env: { ...inherited, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

function databaseUrl(user: string, database = 'custos'): string {
  const url = new URL(TEST_SERVER_URL);
  url.username = user;
  url.password = '';
  url.pathname = `/${database}`;
  return url.toString();
}

/** Ports of their own, so a failing start never meets another stack's port. */
async function ports(): Promise<Record<string, string>> {
  return { AUTH_PORT: String(await freePort()), PAP_PORT: String(await freePort()), PDP_PORT: String(await freePort()) };
}

/** Exit code 1 and exactly one line on stderr: that sentence, with no stack trace anywhere. */
function expectOneSentence(ended: Ended, service: ServiceName, sentence: RegExp): void {
  expect(ended.code).toBe(1);
  const lines = ended.stderr.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^${service} cannot start: `));
  expect(lines[0]).toMatch(sentence);
  expect(`${ended.stdout}${ended.stderr}`).not.toMatch(/\n\s+at /);
}

const SERVICES: ServiceName[] = ['auth-service', 'pap-service', 'pdp-service'];

describe('a service that cannot start says why in one sentence and exits non-zero', () => {
  test.each(SERVICES)('%s with PostgreSQL at a closed port', async (service) => {
    const port = await freePort();
    const ended = await runToExit(service, { ...(await ports()), DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/custos`, NATS_URL: TEST_NATS_URL });
    expectOneSentence(
      ended,
      service,
      new RegExp(`could not connect to PostgreSQL at \`127\\.0\\.0\\.1:${port}\` \\(DATABASE_URL\\): nothing listens there \\(connection refused\\); start PostgreSQL there, or set DATABASE_URL`),
    );
  });

  test.each(SERVICES)('%s as a PostgreSQL user that does not exist', async (service) => {
    const user = `nobody_${randomBytes(4).toString('hex')}`;
    const ended = await runToExit(service, { ...(await ports()), DATABASE_URL: databaseUrl(user), NATS_URL: TEST_NATS_URL });
    expectOneSentence(ended, service, new RegExp(`refused user \`${user}\`: role "${user}" does not exist; create that role`));
  });

  describe('as a PostgreSQL user that may not create the database', () => {
    const user = `custos_nocreate_${randomBytes(4).toString('hex')}`;
    const admin = new Client({ connectionString: TEST_SERVER_URL });

    beforeAll(async () => {
      await admin.connect();
      await admin.query(`CREATE ROLE ${user} LOGIN NOCREATEDB`);
    });

    afterAll(async () => {
      await admin.query(`DROP ROLE IF EXISTS ${user}`);
      await admin.end();
    });

    test.each(SERVICES)('%s', async (service) => {
      const database = `custos_missing_${randomBytes(4).toString('hex')}`;
      const ended = await runToExit(service, { ...(await ports()), DATABASE_URL: databaseUrl(user, database), NATS_URL: TEST_NATS_URL });
      expectOneSentence(ended, service, /permission denied to create database; give that user the CREATEDB privilege/);
    });
  });

  test.each(['pap-service', 'pdp-service'] as const)('%s with NATS at a closed port', async (service) => {
    const port = await freePort();
    const ended = await runToExit(service, { ...(await ports()), DATABASE_URL: databaseUrl('postgres'), NATS_URL: `nats://127.0.0.1:${port}` });
    expectOneSentence(
      ended,
      service,
      new RegExp(`could not connect to NATS at \`127\\.0\\.0\\.1:${port}\` \\(NATS_URL\\): nothing listens there \\(connection refused\\); start nats-server with JetStream`),
    );
  }, 30_000);

  describe('with a NATS server that has no JetStream', () => {
    let nats: OwnNatsServer;

    beforeAll(async () => {
      nats = await startOwnNatsServer({ jetstream: false });
    });

    afterAll(() => nats?.destroy());

    test.each(['pap-service', 'pdp-service'] as const)('%s', async (service) => {
      const ended = await runToExit(service, { ...(await ports()), DATABASE_URL: databaseUrl('postgres'), NATS_URL: nats.url });
      expectOneSentence(
        ended,
        service,
        new RegExp(`NATS at \`127\\.0\\.0\\.1:${nats.port}\` \\(NATS_URL\\) answers but JetStream is not enabled there; start nats-server with \`-js\``),
      );
    });
  });

  test.each([
    ['auth-service', 'AUTH_FAILURE_LIMIT', 'none', /AUTH_FAILURE_LIMIT must be an integer, got `none`; correct that environment variable/],
    ['pap-service', 'NATS_PREFIX', 'a.b', /NATS_PREFIX may hold letters, digits, `_` and `-` only, got `a\.b`; correct that environment variable/],
    ['pdp-service', 'DEFAULT_DECISION', 'maybe', /DEFAULT_DECISION must be one of `allow`, `inhibit`, got `maybe`; correct that environment variable/],
    ['pdp-service', 'PDP_CALL_ALLOW', '10.0.0.0/8,10.0.0.0/33', /PDP_CALL_ALLOW: `10\.0\.0\.0\/33` is not a CIDR; correct that environment variable/],
    ['pdp-service', 'PDP_CALL_ALLOW', 'pip.internal:http', /PDP_CALL_ALLOW: `pip\.internal:http` is neither a CIDR nor `host\[:port\]`; correct that environment variable/],
  ] as const)('%s with %s=%s', async (service, variable, value, sentence) => {
    const ended = await runToExit(service, { ...(await ports()), [variable]: value });
    expectOneSentence(ended, service, sentence);
  });
});
