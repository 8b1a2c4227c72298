import { SnapshotAssembler, decodeSnapshot, encodeSnapshotAnswer, parseChange, type Component } from '@custos/contracts';
import { waitFor } from '@custos/test-kit';
import { PolicySetFollower, type ActivePolicySet } from '../src/policy-set/follower';
import { FakeTransport } from './support/fake-transport';
import { memoryLogger } from './support/logger';
import { component, policy, timerXml } from './support/pdp';
import { inhibitAll } from './support/policies';

/** What the follower builds beside the policies: timers, the PIP/PXP registry and the history index. */
const P = 'urn:policy:acme:limit';
const T = 'urn:timer:acme:t';
const limit = policy(
  P,
  `<mechanism event="urn:action:acme:download">
    <if><greater><count><eventOccurrence event="urn:action:acme:download"><parameter:string name="doc" jsonPathQuery="$.owner" value="x"/></eventOccurrence><when fixedTime="thisWeek"/></count><constant:number value="3"/></greater><then><inhibit/></then></if>
  </mechanism>
  <mechanism event="urn:action:acme:view">
    <if><greater><count><eventOccurrence event="urn:action:acme:login"/><when fixedTime="today"/></count><constant:number value="0"/></greater><then><allow/></then></if>
  </mechanism>`,
);
const timer = timerXml(T, '0 0 * * * ?', '<event action="urn:action:acme:tick"/>');
const pip: Component = component('PIP', 'hr', 'http://127.0.0.1:1/pip', ['urn:info:acme:role', 'dept']);
const pxp: Component = component('PXP', 'mail', 'http://127.0.0.1:2/pxp', ['urn:action:acme:notify']);

describe('the active set beside the policies', () => {
  let transport: FakeTransport;
  let follower: PolicySetFollower;
  const activated: ActivePolicySet[] = [];

  beforeEach(() => {
    transport = new FakeTransport();
    activated.length = 0;
    follower = new PolicySetFollower({ transport, logger: memoryLogger().logger, resyncIntervalMs: 0, onActivate: (a) => activated.push(a) });
  });

  afterEach(async () => {
    await follower.stop();
  });

  const at = async (revision: number) => {
    await waitFor(() => follower.active?.revision === revision, { what: `revision ${revision}` });
    await follower.idle();
    return follower.active!;
  };

  it('takes policies, timers and components from a snapshot, and indexes what each action needs', async () => {
    transport.state = { revision: 3, policies: [{ id: P, xml: limit }, { id: T, xml: timer }], components: [pip, pxp] };
    await follower.start();
    const active = await at(3);
    expect(active.set.size).toBe(1);
    expect([...active.timers.keys()]).toEqual([T]);
    expect(active.timers.get(T)).toMatchObject({ cron: '0 0 * * * ?', events: [{ action: 'urn:action:acme:tick', parameters: [] }] });
    expect(active.components.pip('acme', 'urn:info:acme:role')).toEqual({ componentId: pip.id.identifier, url: 'http://127.0.0.1:1/pip' });
    expect(active.components.pip('acme', 'urn:info:acme:dept')).toEqual({ componentId: pip.id.identifier, url: 'http://127.0.0.1:1/pip' });
    expect(active.components.pip('globex', 'urn:info:globex:role')).toBeUndefined();
    expect(active.components.pxp('acme', 'urn:action:acme:notify')?.componentId).toBe(pxp.id.identifier);
    expect(active.history.plan('urn:action:acme:download')).toMatchObject({
      record: true,
      usesHistory: true,
      filters: [{ name: 'doc', path: '$.owner' }],
    });
    // `view` reads the history but is not recorded; `login` is recorded but nothing decides it.
    expect(active.history.plan('urn:action:acme:view')).toMatchObject({ record: false, usesHistory: true });
    expect(active.history.plan('urn:action:acme:login')).toMatchObject({ record: true, usesPorts: false });
    expect(active.history.plan('urn:action:acme:other')).toBeUndefined();
    // Retention keeps what the longest span naming the action can see (a week, and the engine's margin).
    expect(active.history.horizons.get('urn:action:acme:download')).toBeGreaterThanOrEqual(7 * 24 * 3600 * 1000);
    expect(active.history.horizons.get('urn:action:acme:download')).toBeLessThan(8 * 24 * 3600 * 1000);
    expect(follower.status()).toMatchObject({ policies: 1, timers: 1, components: 2 });
    expect(activated.at(-1)).toBe(active);
  });

  it('applies timer and component changes in revision order, keeping the history index when only they change', async () => {
    transport.state = { revision: 1, policies: [{ id: P, xml: limit }] };
    await follower.start();
    const first = await at(1);
    transport.emit({ revision: 2, type: 'deploy', policy: { id: T, xml: timer } });
    transport.emit({ revision: 3, type: 'component', component: pip });
    const third = await at(3);
    expect([...third.timers.keys()]).toEqual([T]);
    expect(third.components.size).toBe(1);
    expect(third.set).toBe(first.set);
    expect(third.history).toBe(first.history);
    transport.emit({ revision: 4, type: 'unregister', componentId: pip.id.identifier });
    transport.emit({ revision: 5, type: 'revoke', policyId: T });
    const fifth = await at(5);
    expect(fifth.timers.size).toBe(0);
    expect(fifth.components.pip('acme', 'urn:info:acme:role')).toBeUndefined();
    transport.emit({ revision: 6, type: 'deploy', policy: { id: 'urn:policy:acme:x', xml: inhibitAll('urn:policy:acme:x', 'urn:action:acme:y') } });
    const sixth = await at(6);
    expect(sixth.history).not.toBe(first.history);
    expect(activated.map((a) => a.revision)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('switches to every document of a `documents` change at its one revision', async () => {
    const X = 'urn:policy:acme:x';
    transport.state = { revision: 1, policies: [{ id: P, xml: limit }] };
    await follower.start();
    await at(1);
    transport.emit({ revision: 2, type: 'documents', deploy: [{ id: X, xml: inhibitAll(X, 'urn:action:acme:y'), deployedAt: 2 }, { id: T, xml: timer }], revoke: [P] });
    const second = await at(2);
    expect(second.set.size).toBe(1);
    expect(second.set.get(X)).toBeDefined();
    expect(second.set.get(P)).toBeUndefined();
    expect(second.deployments.get(X)).toBe(2);
    expect([...second.timers.keys()]).toEqual([T]);
    expect(second.history.plan('urn:action:acme:download')).toBeUndefined();
    // Revision 1 went straight to revision 2: no set in between holds only some of the documents.
    expect(activated.map((a) => a.revision)).toEqual([1, 2]);
  });

  it('takes none of a `documents` change when one of its documents does not compile', async () => {
    const X = 'urn:policy:acme:x';
    transport.state = { revision: 1, policies: [{ id: P, xml: limit }] };
    await follower.start();
    const first = await at(1);
    const broken = timerXml('urn:timer:acme:broken', 'not cron', '<event action="urn:action:acme:tick"/>');
    transport.emit({ revision: 2, type: 'documents', deploy: [{ id: X, xml: inhibitAll(X, 'urn:action:acme:y') }, { id: 'urn:timer:acme:broken', xml: broken }], revoke: [P] });
    transport.emit({ revision: 3, type: 'component', component: pip });
    await waitFor(() => transport.snapshotRequests >= 2, { what: 'a snapshot after the refused change' });
    expect(follower.active).toBe(first);
    expect(first.set.get(P)).toBeDefined();
    expect(first.set.get(X)).toBeUndefined();
    expect(first.timers.size).toBe(0);
  });

  it('keeps the last good set when a timer does not read', async () => {
    transport.state = { revision: 1, policies: [] };
    await follower.start();
    await at(1);
    transport.emit({ revision: 2, type: 'deploy', policy: { id: T, xml: timerXml(T, 'not cron', '<event action="urn:action:acme:tick"/>') } });
    transport.emit({ revision: 3, type: 'deploy', policy: { id: 'urn:timer:acme:other', xml: timer } });
    // The broken change leaves a gap: the next one asks for a snapshot instead of skipping it.
    await waitFor(() => transport.snapshotRequests >= 2, { what: 'a snapshot after the gap' });
    expect(follower.active!.revision).toBe(1);
  });
});

describe('change and snapshot messages for components', () => {
  it('reads component and unregister changes, and refuses broken ones', () => {
    expect(parseChange(JSON.stringify({ revision: 4, type: 'component', component: pip }))).toEqual({ revision: 4, type: 'component', component: pip });
    expect(parseChange(JSON.stringify({ revision: 5, type: 'unregister', componentId: 'urn:component:acme:pip:hr' }))).toEqual({
      revision: 5,
      type: 'unregister',
      componentId: 'urn:component:acme:pip:hr',
    });
    expect(parseChange(JSON.stringify({ revision: 6, type: 'component', component: { ...pip, id: { componentType: 'PEP', identifier: 'x' } } }))).toMatch(
      /must be a pip or pxp component/,
    );
    expect(parseChange(JSON.stringify({ revision: 7, type: 'unregister' }))).toMatch(/componentId/);
  });

  it('reads components of a snapshot, and snapshots without them', () => {
    const part = (extra: object) => ({ format: 2, index: 0, last: true, revision: 2, policies: [], ...extra });
    expect(decodeSnapshot(encodeSnapshotAnswer({ revision: 2, policies: [], components: [pxp] }, 1024 * 1024))).toEqual({ revision: 2, policies: [], components: [pxp] });
    expect(decodeSnapshot(encodeSnapshotAnswer({ revision: 2, policies: [] }, 1024 * 1024))).toEqual({ revision: 2, policies: [] });
    expect(() => new SnapshotAssembler().add(part({ components: [{ id: 1 }] }))).toThrow(/component 0/);
    expect(() => new SnapshotAssembler().add(part({ components: {} }))).toThrow(/must be an array/);
  });
});
