import { authOperationOf } from '../src/audit/operations';
import { AUTH_ROUTES } from '../src/routes/table';

/** Every route of auth that can change something has its name in the audit trail; sign-ins and reads have none. */
describe("auth's audited operations", () => {
  it('names every write but the token endpoint, and no read', () => {
    const writes = AUTH_ROUTES.filter((route) => route.method !== 'get' && route.path !== '/oauth/token');
    expect(writes.map((route) => authOperationOf(route))).toEqual(['token.revoke', 'client.create', 'client.delete', 'client.rotate-secret']);
    expect(AUTH_ROUTES.filter((route) => (route.method === 'get' || route.path === '/oauth/token') && authOperationOf(route) !== undefined)).toEqual([]);
  });
});
