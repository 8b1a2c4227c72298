import { computePlan, planSummary, stepLine, type CurrentDocument, type DesiredDocument, type Step } from '../src/remote/plan';

const policy = (name: string, xml = `<policy id="urn:policy:acme:${name}"/>`, solution = 'acme'): DesiredDocument => ({
  id: `urn:policy:${solution}:${name}`,
  kind: 'policy',
  file: `dir/${name}.xml`,
  xml,
});
const stored = (id: string, deployed: boolean, xml?: string): CurrentDocument => ({
  id,
  kind: id.startsWith('urn:timer:') ? 'timer' : 'policy',
  deployed,
  ...(xml === undefined ? {} : { xml }),
});
const acme = new Set(['acme']);
const brief = (steps: Step[]) => steps.map((step) => `${step.action} ${step.id}`);

describe('computePlan', () => {
  it('adds and deploys what the pap does not have, sending the file as written', () => {
    const a = policy('a');
    const steps = computePlan({ desired: [a], current: [], solutions: acme, prune: false });
    expect(brief(steps)).toEqual(['add urn:policy:acme:a', 'deploy urn:policy:acme:a']);
    expect(steps[0]).toMatchObject({ file: 'dir/a.xml', xml: a.xml });
  });

  it('replaces a changed deployed document in one step, and deploys a changed undeployed one after replacing it', () => {
    const steps = computePlan({
      desired: [policy('on', 'new on'), policy('off', 'new off')],
      current: [stored('urn:policy:acme:on', true, 'old on'), stored('urn:policy:acme:off', false, 'old off')],
      solutions: acme,
      prune: false,
    });
    expect(brief(steps)).toEqual(['replace urn:policy:acme:off', 'replace urn:policy:acme:on', 'deploy urn:policy:acme:off']);
  });

  it('deploys an identical undeployed document, and leaves an identical deployed one alone', () => {
    const same = policy('same');
    const idle = policy('idle');
    const steps = computePlan({
      desired: [same, idle],
      current: [stored(same.id, true, same.xml), stored(idle.id, false, idle.xml)],
      solutions: acme,
      prune: false,
    });
    expect(brief(steps)).toEqual(['deploy urn:policy:acme:idle']);
  });

  it('is empty when everything matches', () => {
    const a = policy('a');
    expect(computePlan({ desired: [a], current: [stored(a.id, true, a.xml)], solutions: acme, prune: true })).toEqual([]);
  });

  it('revokes deployed documents of the scope the directory does not name, and leaves undeployed ones', () => {
    const steps = computePlan({
      desired: [],
      current: [stored('urn:policy:acme:gone', true), stored('urn:policy:acme:idle', false), stored('urn:timer:acme:tick', true)],
      solutions: acme,
      prune: false,
    });
    expect(brief(steps)).toEqual(['revoke urn:policy:acme:gone', 'revoke urn:timer:acme:tick']);
  });

  it('removes them all with prune, deployed or not, one step each', () => {
    const steps = computePlan({
      desired: [],
      current: [stored('urn:policy:acme:gone', true), stored('urn:policy:acme:idle', false)],
      solutions: acme,
      prune: true,
    });
    expect(brief(steps)).toEqual(['remove urn:policy:acme:gone', 'remove urn:policy:acme:idle']);
  });

  it('never touches another solution', () => {
    const steps = computePlan({
      desired: [],
      current: [stored('urn:policy:globex:theirs', true), stored('urn:policy:acmeplus:near', true)],
      solutions: acme,
      prune: true,
    });
    expect(steps).toEqual([]);
  });

  it('orders steps add, replace, deploy, revoke, remove; policies before timers; ids in byte order', () => {
    const timer: DesiredDocument = { id: 'urn:timer:acme:t', kind: 'timer', file: 'dir/t.xml', xml: 't' };
    const steps = computePlan({
      desired: [policy('b'), timer, policy('a'), policy('c', 'new')],
      current: [stored('urn:policy:acme:c', true, 'old'), stored('urn:policy:acme:z', true)],
      solutions: acme,
      prune: false,
    });
    expect(brief(steps)).toEqual([
      'add urn:policy:acme:a',
      'add urn:policy:acme:b',
      'add urn:timer:acme:t',
      'replace urn:policy:acme:c',
      'deploy urn:policy:acme:a',
      'deploy urn:policy:acme:b',
      'deploy urn:timer:acme:t',
      'revoke urn:policy:acme:z',
    ]);
  });
});

describe('plan lines', () => {
  it('pads the action so ids line up and names the file of adds and replaces', () => {
    expect(stepLine({ action: 'add', kind: 'policy', id: 'urn:policy:acme:a', file: 'dir/a.xml', xml: '' })).toBe(
      'add     urn:policy:acme:a  (dir/a.xml)',
    );
    expect(stepLine({ action: 'revoke', kind: 'timer', id: 'urn:timer:acme:t' })).toBe('revoke  urn:timer:acme:t');
  });

  it('counts each action in the summary', () => {
    const steps: Step[] = [
      { action: 'add', kind: 'policy', id: 'a' },
      { action: 'deploy', kind: 'policy', id: 'a' },
      { action: 'remove', kind: 'policy', id: 'b' },
      { action: 'remove', kind: 'policy', id: 'c' },
    ];
    expect(planSummary(steps)).toBe('plan: 1 to add, 0 to replace, 1 to deploy, 0 to revoke, 2 to remove');
  });
});
