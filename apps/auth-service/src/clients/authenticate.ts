import { DUMMY_HASH, verifySecret } from '../hashing/secrets';
import type { ClientRecord, ClientStore } from './client-store';

/**
 * The client when `secret` is its secret, else undefined. An unknown id costs one scrypt
 * verification too, so the answer takes as long as for a wrong secret.
 */
export async function authenticateClient(store: ClientStore, clientId: string, secret: string): Promise<ClientRecord | undefined> {
  const client = await store.find(clientId);
  if (!client) {
    await verifySecret(secret, DUMMY_HASH);
    return undefined;
  }
  return (await verifySecret(secret, client.secretHash)) ? client : undefined;
}
