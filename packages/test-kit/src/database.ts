import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

export const TEST_SERVER_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.toString();
}

/** A fresh, empty database per test file, so suites can run side by side on one server. */
export async function createTestDatabase(prefix = 'custos_test'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: withDatabase(TEST_SERVER_URL, 'postgres') });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: withDatabase(TEST_SERVER_URL, name),
    drop: () => dropDatabase(name),
  };
}

/** A URL for a database that does not exist yet (to test creation on first start). */
export function unusedDatabaseUrl(prefix = 'custos_test'): { url: string; name: string } {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  return { url: withDatabase(TEST_SERVER_URL, name), name };
}

export async function dropDatabase(name: string): Promise<void> {
  const client = new Client({ connectionString: withDatabase(TEST_SERVER_URL, 'postgres') });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } finally {
    await client.end();
  }
}
