import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Client } from 'pg';
import { createLogger, migrate } from '@custos/service-kit';
import { createTestDatabase, type TestDatabase } from '@custos/test-kit';

describe('migrate', () => {
  let database: TestDatabase;
  let dir: string;
  const logger = createLogger('test', 'silent', new Writable({ write: (_c, _e, done) => done() }));

  beforeAll(async () => {
    database = await createTestDatabase('custos_migrate');
    dir = mkdtempSync(path.join(tmpdir(), 'custos-migrations-'));
    // Slow enough that concurrent runs overlap and meet the lock.
    writeFileSync(
      path.join(dir, '1700000000000_things.js'),
      "exports.up = (pgm) => { pgm.sql('SELECT pg_sleep(0.3)'); pgm.createTable('things', { id: 'serial primary key' }); };\n",
    );
  });

  afterAll(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets replicas that start together each succeed, applying every migration once', async () => {
    await Promise.all([1, 2, 3].map(() => migrate({ databaseUrl: database.url, schema: 'svc', dir, logger })));
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const applied = await client.query('SELECT name FROM svc.pgmigrations');
      expect(applied.rows.map((r) => r.name)).toEqual(['1700000000000_things']);
      const table = await client.query("SELECT to_regclass('svc.things') AS t");
      expect(table.rows[0].t).toBe('svc.things');
    } finally {
      await client.end();
    }
  });
});
