import { waitFor } from '@custos/test-kit';
import { Decider } from '../src/decision/decider';
import { PolicySetFollower } from '../src/policy-set/follower';
import { FakeTransport } from './support/fake-transport';
import { memoryLogger } from './support/logger';
import { inhibitAll } from './support/policies';

/** The solutions' settings travel with the active set, and the decider takes each event's solution's default from it. */
describe("a solution's default decision", () => {
  let transport: FakeTransport;
  let follower: PolicySetFollower;
  const logger = memoryLogger().logger;
  const decider = new Decider({ defaultDecision: 'allow', timeZone: 'UTC', logger });

  beforeEach(() => {
    transport = new FakeTransport();
    follower = new PolicySetFollower({ transport, logger, resyncIntervalMs: 0 });
  });

  afterEach(async () => {
    await follower.stop();
  });

  const at = async (revision: number) => {
    await waitFor(() => follower.active?.revision === revision, { what: `revision ${revision}` });
    return follower.active!;
  };
  const decideAt = async (revision: number, solution: string, action = 'nothing-speaks-of-it', explain = false) => {
    const active = await at(revision);
    return decider.decide(active, { action: `urn:action:${solution}:${action}`, timestamp: 0, parameters: new Map() }, solution, explain);
  };

  it("comes from the snapshot's settings for that solution, else the pdp's, and says which", async () => {
    transport.state = {
      revision: 3,
      policies: [{ id: 'urn:policy:acme:p', xml: inhibitAll('urn:policy:acme:p', 'urn:action:acme:delete') }],
      settings: [{ solution: 'acme', settings: { defaultDecision: 'inhibit' } }],
    };
    await follower.start();
    expect(await decideAt(3, 'acme')).toMatchObject({ allowed: false, decided: false, defaultSource: 'solution' });
    expect(await decideAt(3, 'beta')).toMatchObject({ allowed: true, decided: false, defaultSource: 'pdp' });
    // A mechanism that decides is not a default, whoever's.
    const decided = await decideAt(3, 'acme', 'delete');
    expect(decided).toMatchObject({ allowed: false, decided: true });
    expect(decided).not.toHaveProperty('defaultSource');
    const explained = await decideAt(3, 'acme', 'nothing-speaks-of-it', true);
    expect(explained).toMatchObject({ allowed: false, defaultSource: 'solution', explanation: [] });
  });

  it('changes with a `settings` change at its revision, and `{}` gives the solution back the pdp default', async () => {
    transport.state = { revision: 1, policies: [] };
    await follower.start();
    expect(await decideAt(1, 'acme')).toMatchObject({ allowed: true, defaultSource: 'pdp' });
    transport.emit({ revision: 2, type: 'settings', solution: 'acme', settings: { defaultDecision: 'inhibit', authzenDefault: 'allow' } });
    expect(await decideAt(2, 'acme')).toMatchObject({ allowed: false, defaultSource: 'solution' });
    expect(follower.active?.settings.get('acme')).toEqual({ defaultDecision: 'inhibit', authzenDefault: 'allow' });
    transport.emit({ revision: 3, type: 'settings', solution: 'beta', settings: { defaultDecision: 'inhibit' } });
    transport.emit({ revision: 4, type: 'settings', solution: 'acme', settings: {} });
    expect(await decideAt(4, 'acme')).toMatchObject({ allowed: true, defaultSource: 'pdp' });
    expect(await decideAt(4, 'beta')).toMatchObject({ allowed: false, defaultSource: 'solution' });
    expect([...follower.active!.settings.keys()]).toEqual(['beta']);
  });
});
