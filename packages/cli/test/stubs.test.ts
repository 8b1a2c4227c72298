import { stubPip, stubPxp, type PxpCall } from '../src/offline/testing/stubs';

const OPTIONS = { solution: 'acme', ttlMs: null };

describe('PIP and PXP stubs', () => {
  const pip = stubPip([
    { method: 'urn:info:acme:role', parameters: { user: 'ann' }, value: 'hr', fail: false },
    { method: 'urn:info:acme:role', parameters: { user: 'bob' }, value: undefined, fail: true },
    { method: 'urn:info:acme:role', parameters: null, value: 'staff', fail: false },
    { method: 'urn:info:acme:limits', parameters: { team: { id: 7, tags: ['a'] } }, value: { max: 3 }, fail: false },
  ]);

  it('answers by exact parameters first, then by the catch-all of the method', async () => {
    expect(await pip.resolve('urn:info:acme:role', [{ name: 'user', value: 'ann' }], OPTIONS)).toEqual({ ok: true, value: 'hr' });
    expect(await pip.resolve('urn:info:acme:role', [{ name: 'user', value: 'cid' }], OPTIONS)).toEqual({ ok: true, value: 'staff' });
    // Exact means exact: one more parameter is another call.
    expect(
      await pip.resolve('urn:info:acme:role', [{ name: 'user', value: 'ann' }, { name: 'site', value: 'x' }], OPTIONS),
    ).toEqual({ ok: true, value: 'staff' });
  });

  it('fails where a stub says so or where the method has no stub, so the default applies', async () => {
    expect(await pip.resolve('urn:info:acme:role', [{ name: 'user', value: 'bob' }], OPTIONS)).toEqual({ ok: false });
    expect(await pip.resolve('urn:info:acme:unknown', [], OPTIONS)).toEqual({ ok: false });
    expect(await pip.resolve('urn:info:acme:limits', [{ name: 'team', value: { id: 8, tags: ['a'] } }], OPTIONS)).toEqual({ ok: false });
  });

  it('compares structured parameters deeply', async () => {
    expect(await pip.resolve('urn:info:acme:limits', [{ name: 'team', value: { tags: ['a'], id: 7 } }], OPTIONS)).toEqual({ ok: true, value: { max: 3 } });
  });

  it('answers executes in conditions from stubs, false without one, and records each call', async () => {
    const calls: PxpCall[] = [];
    const pxp = stubPxp([{ action: 'urn:action:acme:approve', answer: true }], calls);
    expect(await pxp.execute('urn:action:acme:approve', [{ name: 'doc', value: 'd1' }], { solution: 'acme' })).toBe(true);
    expect(await pxp.execute('urn:action:acme:other', [], { solution: 'acme' })).toBe(false);
    expect(calls).toEqual([
      { action: 'urn:action:acme:approve', parameters: { doc: 'd1' } },
      { action: 'urn:action:acme:other', parameters: {} },
    ]);
  });
});
