import request from 'supertest';
import { TestAuthority } from '@custos/test-kit';
import { startPdp, type PdpHarness, type PdpOptions } from './pdp';

/** What `usePdp` gives a describe block: the harness of `startPdp`, the authority behind it, and a decider's token. */
export interface UsedPdp extends PdpHarness {
  authority: TestAuthority;
  /** Bearer token of `scopes` (default `event:decide`) for solution `acme`. */
  token: string;
  /** POSTs `body` as JSON to the pdp with `token`, or with `bearer` when given. */
  post(path: string, body: unknown, bearer?: string): request.Test;
}

export interface UsePdpOptions extends Omit<PdpOptions, 'authority'> {
  /** Scopes of `token` (default `['event:decide']`). */
  scopes?: string[];
}

/**
 * The setup most pdp tests share, in one call at the top of a `describe`:
 *
 *     const pdp = usePdp({ clock });
 *     beforeAll(() => pdp.deploy(P('block'), inhibitAll(P('block'), A('export'))));
 *     it('...', async () => expect((await pdp.post('/event', wireEvent('export'))).status).toBe(200));
 *
 * It registers a `beforeAll` that starts a TestAuthority, mints `token` and starts the pdp (`startPdp(options)`:
 * fresh database, FakePap on a unique NATS prefix), and an `afterAll` that stops both. The returned object stands for
 * the harness once `beforeAll` ran: read its fields inside hooks and tests only (reading one earlier throws).
 * Hooks the test registers after this call run after the pdp started.
 */
export function usePdp(options: UsePdpOptions = {}): UsedPdp {
  const { scopes = ['event:decide'], ...pdpOptions } = options;
  let started: UsedPdp | undefined;
  let authority: TestAuthority | undefined;

  beforeAll(async () => {
    authority = await new TestAuthority().start();
    const token = authority.mint({ scopes, solutions: ['acme'] });
    const harness = await startPdp({ ...pdpOptions, authority });
    started = {
      ...harness,
      authority,
      token,
      post: (path, body, bearer = token) => request(harness.server).post(path).set('Authorization', `Bearer ${bearer}`).send(body as object),
    };
  });

  afterAll(async () => {
    await started?.stop();
    await authority?.stop();
  });

  return new Proxy({} as UsedPdp, {
    get(_target, key) {
      if (started === undefined) throw new Error(`usePdp: \`${String(key)}\` was read before the pdp started (use it in hooks and tests)`);
      return Reflect.get(started, key);
    },
  });
}
