import type { LookupAddress } from 'node:dns';
import { DEFAULT_EGRESS_POLICY, EgressPolicy } from '@custos/service-kit';
import { EgressRefused, guardedLookup } from '../src/egress';

// The address rules themselves are service-kit's (packages/service-kit/test/egress.test.ts); this is the pdp's
// use of them on what a name resolves to.
describe('the guarded lookup', () => {
  const lookupWith = (policy: EgressPolicy, url: string) =>
    new Promise<{ error: NodeJS.ErrnoException | null; addresses: string | LookupAddress[] }>((resolve) => {
      const parsed = new URL(url);
      guardedLookup(parsed, policy)(parsed.hostname, { all: true }, (error, addresses) => resolve({ error, addresses }));
    });

  it('refuses a name that resolves to loopback, and hands over the checked addresses when allowed', async () => {
    const refused = await lookupWith(DEFAULT_EGRESS_POLICY, 'http://localhost:9000/x');
    expect(refused.error).toBeInstanceOf(EgressRefused);
    expect(refused.error?.message).toMatch(/resolves to a refused address/);
    const allowed = await lookupWith(EgressPolicy.fromEnv({ PDP_CALL_ALLOW: '127.0.0.1,::1' }), 'http://localhost:9000/x');
    expect(allowed.error).toBeNull();
    expect((allowed.addresses as LookupAddress[]).map((a) => a.address)).toEqual(expect.arrayContaining(['127.0.0.1']));
  });
});
