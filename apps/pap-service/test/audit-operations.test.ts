import { papOperationOf } from '../src/audit/operations';
import { PAP_ROUTES } from '../src/routes/table';

/** Every route that can change something has its name in the audit trail; reads have none. */
describe("pap's audited operations", () => {
  it('names every write but validation, and no read', () => {
    const writes = PAP_ROUTES.filter((route) => route.method !== 'get' && !route.path.endsWith('/validate'));
    expect(writes.length).toBeGreaterThan(10);
    expect(writes.filter((route) => papOperationOf(route) === undefined).map((route) => `${route.method} ${route.path}`)).toEqual([]);
    expect(PAP_ROUTES.filter((route) => route.method === 'get' && papOperationOf(route) !== undefined)).toEqual([]);
    expect(new Set(writes.map(papOperationOf)).size).toBe(writes.length);
  });
});
