import request from 'supertest';
import { ALL_SCOPES } from '@custos/contracts';
import { ClientStore } from '../src/clients/client-store';
import { countRows, form, testEnv, tokenFor, type TestEnv } from './helpers';

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});
afterAll(async () => {
  await env.close();
});

const bootstrap = (clientSecret: string, clientId = 'admin') => ({ config: { bootstrap: { clientId, clientSecret }, trustProxy: false } });
const hashOf = async (id: string) =>
  (await env.pool.query<{ secret_hash: string; updated_at: Date }>('SELECT secret_hash, updated_at FROM auth.clients WHERE id = $1', [id]))
    .rows[0];

describe('bootstrap client', () => {
  it('is not created unless configured', async () => {
    await env.app();
    expect(await countRows(env.pool, 'auth.clients')).toBe(0);
  });

  it('is created with every scope and every solution, its secret stored only as a hash', async () => {
    const app = await env.app(bootstrap('first-secret-0123456789'));
    const client = await new ClientStore(env.pool).find('admin');
    expect(client).toMatchObject({ scopes: [...ALL_SCOPES], solutions: ['*'] });
    expect(client!.secretHash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(client!.secretHash).not.toContain('first-secret');
    const response = await request(app)
      .post('/oauth/token')
      .type('form')
      .send(form({ grant_type: 'client_credentials', client_id: 'admin', client_secret: 'first-secret-0123456789' }));
    expect(response.status).toBe(200);
    expect(response.body.scope).toBe(ALL_SCOPES.join(' '));
  });

  it('is left alone when nothing differs', async () => {
    const before = await hashOf('admin');
    await env.app(bootstrap('first-secret-0123456789'));
    expect(await hashOf('admin')).toEqual(before);
  });

  it('takes the configured secret when it changed: the old one stops working', async () => {
    const before = await hashOf('admin');
    const app = await env.app(bootstrap('second-secret-0123456789'));
    expect((await hashOf('admin'))!.secret_hash).not.toBe(before!.secret_hash);
    await expect(tokenFor(app, 'admin', 'first-secret-0123456789')).rejects.toThrow(/401/);
    await expect(tokenFor(app, 'admin', 'second-secret-0123456789')).resolves.toMatch(/\./);
    expect(await countRows(env.pool, 'auth.clients')).toBe(1);
  });

  it('gets every scope and solution back when they were narrowed', async () => {
    await env.pool.query("UPDATE auth.clients SET scopes = '{event:decide}', solutions = '{acme}' WHERE id = 'admin'");
    await env.app(bootstrap('second-secret-0123456789'));
    expect(await new ClientStore(env.pool).find('admin')).toMatchObject({ scopes: [...ALL_SCOPES], solutions: ['*'] });
  });

  it('is created once when instances start together', async () => {
    await Promise.all(Array.from({ length: 3 }, () => env.app(bootstrap('together-0123456789', 'admin-2'))));
    const rows = await env.pool.query("SELECT id FROM auth.clients WHERE id = 'admin-2'");
    expect(rows.rowCount).toBe(1);
    const app = await env.app();
    await expect(tokenFor(app, 'admin-2', 'together-0123456789')).resolves.toMatch(/\./);
  });
});
