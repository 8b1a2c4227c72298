import { createPolicySet, decide, emptyPolicySet, loadCompiledTree, loadPolicy, loadPolicyTree, POLICY_TREE_VERSION, type LoadOutcome } from '@custos/policy-engine';
import type { DeployedPolicy } from '@custos/contracts';
import { ComponentRegistry } from '../src/components/registry';
import type { SetFailure, SetParts } from '../src/policy-set/active-set';
import { SetBuilder } from '../src/policy-set/set-builder';
import { PolicySetFollower } from '../src/policy-set/follower';
import { waitFor } from '@custos/test-kit';
import { FakeTransport } from './support/fake-transport';
import { memoryLogger } from './support/logger';
import { inhibitAll, maskingPolicy } from './support/policies';

/** The pdp compiles a policy from the tree pap sent when it can, and from the XML otherwise. */

const A = 'urn:policy:acme:a';
const B = 'urn:policy:acme:b';

function treeOf(xml: string): Record<string, unknown> {
  const outcome = loadPolicyTree(xml);
  if (!outcome.ok) throw new Error(JSON.stringify(outcome.diagnostics));
  return JSON.parse(JSON.stringify(outcome.tree)) as Record<string, unknown>;
}

function counted() {
  const calls = { xml: 0, tree: 0 };
  const failures: SetFailure[] = [];
  const builder = new SetBuilder({
    compile: (xml: string): LoadOutcome => {
      calls.xml++;
      return loadPolicy(xml);
    },
    compileTree: (tree: unknown): LoadOutcome => {
      calls.tree++;
      return loadCompiledTree(tree);
    },
    onFailure: (failure) => failures.push(failure),
  });
  return { builder, calls, failures };
}

const empty: SetParts = { set: emptyPolicySet(), timers: new Map(), components: new ComponentRegistry(new Map()), sources: new Map(), deployments: new Map() };

const decideOn = (parts: SetParts, action: string, amount: number) =>
  decide(parts.set, { action, timestamp: 0, parameters: new Map([['amount', amount]]) }, { defaultDecision: 'allow', timeZone: 'UTC' });

describe('SetBuilder with compiled trees', () => {
  it('compiles a snapshot from the trees without reading any XML, to the same decisions', async () => {
    const { builder, calls } = counted();
    const xml = maskingPolicy(A, 'urn:action:acme:pay', 7);
    const policies: DeployedPolicy[] = [{ id: A, xml, tree: treeOf(xml) }, { id: B, xml: inhibitAll(B, 'urn:action:acme:b'), tree: treeOf(inhibitAll(B, 'urn:action:acme:b')) }];
    const built = await builder.buildSnapshot({ revision: 4, policies }, undefined, () => false);
    expect(calls).toEqual({ xml: 0, tree: 2 });
    expect(built?.parts.set.size).toBe(2);
    const fromXml = loadPolicy(xml);
    if (!fromXml.ok) throw new Error('refused');
    const reference = { ...empty, set: createPolicySet([fromXml.policy]) };
    for (const amount of [7, 8]) expect(decideOn(built!.parts, 'urn:action:acme:pay', amount)).toEqual(decideOn(reference, 'urn:action:acme:pay', amount));
    expect(decideOn(built!.parts, 'urn:action:acme:pay', 7).allowed).toBe(false);
  });

  it('compiles the XML when there is no tree, or one of a version this engine does not read', () => {
    const { builder, calls } = counted();
    const xml = inhibitAll(A, 'urn:action:acme:a');
    const plain = builder.applyChange(empty, { revision: 1, type: 'deploy', policy: { id: A, xml } });
    expect(plain?.set.has(A)).toBe(true);
    const newer = builder.applyChange(empty, { revision: 1, type: 'deploy', policy: { id: A, xml, tree: { ...treeOf(xml), version: POLICY_TREE_VERSION + 1 } } });
    expect(newer?.set.has(A)).toBe(true);
    expect(calls).toEqual({ xml: 2, tree: 0 });
  });

  it('refuses a damaged tree with the reason, so the last good set stays', () => {
    const { builder, calls, failures } = counted();
    const xml = inhibitAll(A, 'urn:action:acme:a');
    const tree = treeOf(xml);
    (tree.policy as { mechanisms: unknown }).mechanisms = 'none';
    expect(builder.applyChange(empty, { revision: 2, type: 'deploy', policy: { id: A, xml, tree } })).toBeUndefined();
    expect(calls).toEqual({ xml: 0, tree: 1 });
    expect(failures).toEqual([{ documentId: A, source: 'change', problems: ['?:? invalid_tree: policy.mechanisms: is not a list'] }]);
  });

  it('refuses a tree of another id than the document it came as', () => {
    const { builder, failures } = counted();
    const xml = inhibitAll(A, 'urn:action:acme:a');
    expect(builder.applyChange(empty, { revision: 2, type: 'deploy', policy: { id: B, xml: inhibitAll(B, 'urn:action:acme:a'), tree: treeOf(xml) } })).toBeUndefined();
    expect(failures[0]?.problems).toEqual([`the document declares the id \`${A}\``]);
  });
});

describe('the follower given a damaged tree', () => {
  it('keeps the last good set, and does not skip the change', async () => {
    const transport = new FakeTransport();
    const follower = new PolicySetFollower({ transport, logger: memoryLogger().logger, resyncIntervalMs: 0 });
    try {
      const xml = inhibitAll(A, 'urn:action:acme:a');
      transport.state = { revision: 1, policies: [{ id: A, xml, tree: treeOf(xml) }] };
      await follower.start();
      await waitFor(() => follower.active?.revision === 1, { what: 'revision 1' });
      const replaced = inhibitAll(A, 'urn:action:acme:other');
      const damaged = { ...treeOf(replaced), policy: { ...(treeOf(replaced).policy as object), solution: 'globex' } };
      transport.emit({ revision: 2, type: 'deploy', policy: { id: A, xml: replaced, tree: damaged } });
      transport.emit({ revision: 3, type: 'revoke', policyId: B });
      // The refused change leaves a gap: the next one asks for a snapshot instead of skipping it.
      await waitFor(() => transport.snapshotRequests >= 2, { what: 'a snapshot after the gap' });
      expect(follower.active?.revision).toBe(1);
      expect(follower.active?.set.get(A)?.actions).toEqual(['urn:action:acme:a']);
    } finally {
      await follower.stop();
    }
  });
});
