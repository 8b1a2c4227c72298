import { CONFIGURED_CLIENT_ID } from '../config';
import { DUMMY_HASH, verifySecret } from '../hashing/secrets';
import type { ClientRecord, ClientStore } from './client-store';

/**
 * Could `id` name a client at all? Every stored id (generated `c_...` or configured) matches
 * CONFIGURED_CLIENT_ID; anything else (NUL characters, which PostgreSQL cannot even compare,
 * control characters, overlong claims) is unknown without asking the database.
 */
export const isPossibleClientId = (id: string): boolean => CONFIGURED_CLIENT_ID.test(id);

/**
 * The client when `secret` is its secret, else undefined. An unknown id costs one scrypt
 * verification too, so the answer takes as long as for a wrong secret.
 */
export async function authenticateClient(store: ClientStore, clientId: string, secret: string): Promise<ClientRecord | undefined> {
  const client = isPossibleClientId(clientId) ? await store.find(clientId) : undefined;
  if (!client) {
    await verifySecret(secret, DUMMY_HASH);
    return undefined;
  }
  return (await verifySecret(secret, client.secretHash)) ? client : undefined;
}
