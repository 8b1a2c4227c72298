import { authenticateClient } from '../src/clients/authenticate';
import type { ClientRecord, ClientStore } from '../src/clients/client-store';
import * as secrets from '../src/hashing/secrets';

/** Unit test: a store in memory; what matters is that both failure paths do the same work. */
function storeWith(records: ClientRecord[]): ClientStore {
  return { find: async (id: string) => records.find((record) => record.id === id) } as unknown as ClientStore;
}

describe('authenticateClient', () => {
  let record: ClientRecord;
  beforeAll(async () => {
    record = {
      id: 'known',
      secretHash: await secrets.hashSecret('right'),
      scopes: ['event:decide'],
      solutions: ['acme'],
      description: '',
      createdAt: new Date(),
      updatedAt: new Date(),
    };
  });
  afterEach(() => jest.restoreAllMocks());

  it('returns the client for the right secret only', async () => {
    const store = storeWith([record]);
    await expect(authenticateClient(store, 'known', 'right')).resolves.toBe(record);
    await expect(authenticateClient(store, 'known', 'wrong')).resolves.toBeUndefined();
    await expect(authenticateClient(store, 'unknown', 'right')).resolves.toBeUndefined();
  });

  it('runs one scrypt verification for an unknown client, as for a wrong secret', async () => {
    const verify = jest.spyOn(secrets, 'verifySecret');
    const store = storeWith([record]);
    await authenticateClient(store, 'known', 'wrong');
    expect(verify.mock.calls).toEqual([['wrong', record.secretHash]]);
    verify.mockClear();
    await authenticateClient(store, 'unknown', 'wrong');
    expect(verify.mock.calls).toEqual([['wrong', secrets.DUMMY_HASH]]);
  });
});
