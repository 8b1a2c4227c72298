import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { migrate } from '@custos/service-kit';
import { createTestDatabase, type TestDatabase } from '@custos/test-kit';
import { MIGRATIONS_DIR } from '../src/compose';
import { policyXml, testLogger, timerXml } from './harness';

const VERSIONS_MIGRATION = '1795780000000_pap-document-versions.js';

let db: TestDatabase;
let before: string;
let client: Client;
beforeAll(async () => {
  db = await createTestDatabase('pap_test');
  // The migrations as they were before versions existed.
  before = await mkdtemp(path.join(tmpdir(), 'pap-migrations-'));
  const files = (await readdir(MIGRATIONS_DIR)).filter((file) => file < VERSIONS_MIGRATION);
  for (const file of files) await copyFile(path.join(MIGRATIONS_DIR, file), path.join(before, file));
  client = new Client({ connectionString: db.url });
  await client.connect();
});
afterAll(async () => {
  await client?.end();
  await db?.drop();
  if (before) await rm(before, { recursive: true, force: true });
});

test('documents stored before versions existed become version 1, of unknown author, dated by their last change', async () => {
  const logger = testLogger();
  await migrate({ databaseUrl: db.url, schema: 'pap', dir: before, logger });
  const P = 'urn:policy:acme:old';
  const T = 'urn:timer:acme:old';
  await client.query(`INSERT INTO pap.policies (id, solution, xml, updated_at) VALUES ($1, 'acme', $2, '2026-01-02T03:04:05Z')`, [P, policyXml(P)]);
  await client.query(`INSERT INTO pap.timers (id, solution, cron, xml, updated_at) VALUES ($1, 'acme', '0 0 2 * * ?', $2, '2026-02-03T04:05:06Z')`, [T, timerXml(T)]);

  await migrate({ databaseUrl: db.url, schema: 'pap', dir: MIGRATIONS_DIR, logger });

  const policies = await client.query('SELECT id, number, xml, client_id, request_id, created_at FROM pap.policy_versions');
  expect(policies.rows).toEqual([{ id: P, number: 1, xml: policyXml(P), client_id: null, request_id: null, created_at: new Date('2026-01-02T03:04:05Z') }]);
  const timers = await client.query('SELECT id, number, xml, client_id, request_id, created_at FROM pap.timer_versions');
  expect(timers.rows).toEqual([{ id: T, number: 1, xml: timerXml(T), client_id: null, request_id: null, created_at: new Date('2026-02-03T04:05:06Z') }]);
});
