import request from 'supertest';
import { TestAuthority } from '@custos/test-kit';
import { startPdp, type PdpHarness, type PdpOptions } from './pdp';

/** What `useAuthority` gives a describe block: a running TestAuthority and a token it minted. */
export interface UsedAuthority {
  authority: TestAuthority;
  /** Bearer token of the scopes asked for (default `event:decide`) for solution `acme`. */
  token: string;
}

/** What `usePdp` gives a describe block: the harness of `startPdp`, the authority behind it, and a decider's token. */
export interface UsedPdp extends PdpHarness, UsedAuthority {
  /** POSTs `body` as JSON to the pdp with `token`, or with `bearer` when given. */
  post(path: string, body: unknown, bearer?: string): request.Test;
}

export interface UsePdpOptions extends Omit<PdpOptions, 'authority'> {
  /** Scopes of `token` (default `['event:decide']`). */
  scopes?: string[];
}

/** An object that stands for the value `current()` returns once a `beforeAll` set it; reading it earlier throws. */
function late<T extends object>(current: () => T | undefined, what: string): T {
  return new Proxy({} as T, {
    get(_target, key) {
      const value = current();
      if (value === undefined) throw new Error(`\`${String(key)}\` of ${what} was read before it started (use it in hooks and tests)`);
      return Reflect.get(value, key) as unknown;
    },
  });
}

/**
 * A TestAuthority for the tests of one describe block: started by a `beforeAll` registered here, with `token` minted
 * for `scopes` and solution `acme`, and stopped by an `afterAll`. Read its fields inside hooks and tests only.
 */
export function useAuthority(scopes: string[] = ['event:decide']): UsedAuthority {
  let used: UsedAuthority | undefined;
  beforeAll(async () => {
    const authority = await new TestAuthority().start();
    used = { authority, token: authority.mint({ scopes, solutions: ['acme'] }) };
  });
  afterAll(async () => {
    await used?.authority.stop();
  });
  return late(() => used, 'the authority');
}

/**
 * The setup most pdp tests share, in one call at the top of a `describe`:
 *
 *     const pdp = usePdp({ clock });
 *     beforeAll(() => pdp.deploy(P('block'), inhibitAll(P('block'), A('export'))));
 *     it('...', async () => expect((await pdp.post('/event', wireEvent('export'))).status).toBe(200));
 *
 * It registers `beforeAll` hooks that start a TestAuthority (`useAuthority(options.scopes)`) and the pdp
 * (`startPdp(options)`: fresh database, FakePap on a unique NATS prefix), and `afterAll` hooks that stop both. The
 * returned object stands for the harness once they ran: read its fields inside hooks and tests only (reading one
 * earlier throws). Hooks the test registers after this call run after the pdp started.
 */
export function usePdp(options: UsePdpOptions = {}): UsedPdp {
  const { scopes, ...pdpOptions } = options;
  const auth = useAuthority(scopes);
  let started: UsedPdp | undefined;

  beforeAll(async () => {
    const { authority, token } = auth;
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
  });

  return late(() => started, 'the pdp');
}
