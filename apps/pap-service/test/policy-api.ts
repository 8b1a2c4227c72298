import request from 'supertest';
import { dump, useHarness, type Harness } from './harness';

/** What the policy route tests share: a harness for the file, pap's policy routes, and how many changes it woke. */
export interface PolicyApi {
  /** The harness; read it inside hooks and tests. */
  readonly h: Harness;
  /** Changes the store announced so far (`onChange`), to tell a change from a no-op. */
  readonly changes: number;
  readonly add: (xml: string, auth?: string, type?: string) => request.Test;
  readonly put: (id: string, xml: string, auth?: string) => request.Test;
  readonly get: (path: string, auth?: string) => request.Test;
  readonly post: (path: string, auth?: string) => request.Test;
  readonly del: (path: string, auth?: string) => request.Test;
  /** Sends, expects a problem of `status` and `code`, and the database as it was. */
  readonly expectUnchanged: (send: () => Promise<request.Response>, status: number, code: string) => Promise<request.Response>;
}

/** Registers a harness started before the file's tests and closed after them; the requests go as the default token. */
export function usePolicyApi(): PolicyApi {
  let changes = 0;
  const h = useHarness({ onChange: () => void changes++ });
  return {
    get h() {
      return h();
    },
    get changes() {
      return changes;
    },
    add: (xml, auth = h().bearer(), type = 'application/xml') => request(h().app).post('/ws/policy').set('Authorization', auth).set('Content-Type', type).send(xml),
    put: (id, xml, auth = h().bearer()) => request(h().app).put(`/ws/policy/${id}`).set('Authorization', auth).set('Content-Type', 'application/xml').send(xml),
    get: (path, auth = h().bearer()) => request(h().app).get(path).set('Authorization', auth),
    post: (path, auth = h().bearer()) => request(h().app).post(path).set('Authorization', auth),
    del: (path, auth = h().bearer()) => request(h().app).delete(path).set('Authorization', auth),
    expectUnchanged: async (send, status, code) => {
      const before = await dump(h().pool);
      const res = await send();
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body.code).toBe(code);
      expect(await dump(h().pool)).toEqual(before);
      return res;
    },
  };
}
