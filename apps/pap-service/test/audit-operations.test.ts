import { papOperationOf } from '../src/audit/operations';
import { PAP_ROUTES } from '../src/routes/table';

/** Every route that can change something has its name in the audit trail; reads have none. */
describe("pap's audited operations", () => {
  it('names every write but validation (revoke in both its forms), and no read', () => {
    const changes = (route: (typeof PAP_ROUTES)[number]) => (route.method !== 'get' || route.path.endsWith('/revoke')) && !route.path.endsWith('/validate');
    const writes = PAP_ROUTES.filter(changes);
    expect(writes.length).toBeGreaterThan(10);
    expect(writes.filter((route) => papOperationOf(route) === undefined).map((route) => `${route.method} ${route.path}`)).toEqual([]);
    expect(PAP_ROUTES.filter((route) => !changes(route) && papOperationOf(route) !== undefined)).toEqual([]);
    // One name per operation: the two forms of revoke of each kind are one.
    expect(new Set(writes.map(papOperationOf)).size).toBe(writes.length - 2);
  });
});
