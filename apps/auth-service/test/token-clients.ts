import type { Pool } from 'pg';
import type request from 'supertest';
import { ClientStore } from '../src/clients/client-store';
import { hashSecret } from '../src/hashing/secrets';

/** What the token endpoint tests share: the route, the grant, their clients and the OAuth error's form. */
export const TOKEN = '/oauth/token';
export const GRANT = { grant_type: 'client_credentials' };

export const acme = { id: 'acme-client', secret: 'acme-secret-0123456789', scopes: ['event:decide', 'policy:read', 'policy:write'], solutions: ['acme'] };
// Characters that Basic credentials must carry form-urlencoded.
export const odd = { id: 'odd.client~1', secret: 'p+ss w:rd%&=é', scopes: ['component:read'], solutions: ['odd', 'other'] };
export const plus = { id: 'plus', secret: 'a+b', scopes: ['policy:read'], solutions: ['plus'] };

/** Stores the three clients in the database of `pool`. */
export async function createClients(pool: Pool): Promise<void> {
  const store = new ClientStore(pool);
  for (const client of [acme, odd, plus]) {
    await store.create({ id: client.id, secretHash: await hashSecret(client.secret), scopes: client.scopes, solutions: client.solutions, description: '' });
  }
}

/** Every token endpoint error: OAuth JSON (not problem+json), never cached. */
export function expectOAuthError(response: request.Response, status: number, error: string): void {
  expect({ status: response.status, error: response.body.error }).toEqual({ status, error });
  expect(response.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(response.body).sort()).toEqual(['error', 'error_description']);
  expect(typeof response.body.error_description).toBe('string');
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers.pragma).toBe('no-cache');
}
