import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { Client, Pool } from 'pg';
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

  it('migrates through a pool of one connection when given one, and leaves the pool usable', async () => {
    const pool = new Pool({ connectionString: database.url, max: 1 });
    let connections = 0;
    pool.on('connect', () => connections++);
    try {
      await migrate({ databaseUrl: database.url, schema: 'pooled', dir, logger, pool });
      const applied = await pool.query('SELECT name FROM pooled.pgmigrations');
      expect(applied.rows.map((r: { name: string }) => r.name)).toEqual(['1700000000000_things']);
      // The same one connection did the migration and the query after it.
      expect(connections).toBe(1);
      expect(pool.idleCount).toBe(1);
    } finally {
      await pool.end();
    }
  });
});
