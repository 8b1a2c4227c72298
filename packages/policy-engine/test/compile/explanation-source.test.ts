import { createPolicySet, decide, explanationSourcesNeeded, loadCompiledTree, loadPolicy, loadPolicyTree, provideExplanationSource, type CompiledPolicy, type DecideOptions } from '../../src';
import { policyXml } from '../support/policies';

/** A policy compiled without its explaining source (issue 26) explains like any other once given its document. */

const XML = policyXml(`
  <mechanism event="urn:action:acme:act">
    <if>
      <equals><event:string eventParameter="user" jsonPathQuery="$.name" default=""/><constant:string value="Mallory"/></equals>
      <then><inhibit reason="never Mallory"/></then>
    </if>
    <else><allow/></else>
  </mechanism>`);
const OTHER = policyXml('<mechanism event="urn:action:acme:act"><if><constant:true/><then><allow/></then></if></mechanism>', 'urn:policy:acme:other');
const OPTIONS: DecideOptions = { defaultDecision: 'inhibit', timeZone: 'UTC', explain: true };
const EVENT = { action: 'urn:action:acme:act', timestamp: 0, parameters: new Map<string, unknown>([['user', { name: 'Mallory' }]]) };

function treeOf(xml: string): unknown {
  const loaded = loadPolicyTree(xml);
  if (!loaded.ok) throw new Error(`refused: ${JSON.stringify(loaded.diagnostics)}`);
  return JSON.parse(JSON.stringify(loaded.tree)) as unknown;
}

function sourceless(xml: string): CompiledPolicy {
  const outcome = loadCompiledTree(treeOf(xml), { keepExplainingSource: false });
  if (!outcome.ok) throw new Error('refused');
  return outcome.policy;
}

describe('explaining a policy compiled without its source', () => {
  it('names the policies that need their document, and refuses to explain before', () => {
    const policy = sourceless(XML);
    const set = createPolicySet([policy]);
    expect(explanationSourcesNeeded(set, 'urn:action:acme:act')).toEqual(['urn:policy:acme:test']);
    expect(explanationSourcesNeeded(set, 'urn:action:acme:nothing')).toEqual([]);
    expect(() => decide(set, EVENT, OPTIONS)).toThrow(TypeError);
    // Deciding needs no source.
    expect(decide(set, EVENT, { ...OPTIONS, explain: false }).allowed).toBe(false);
  });

  it('explains as a policy that kept its source, once given its tree or its XML', () => {
    const loaded = loadPolicy(XML);
    if (!loaded.ok) throw new Error('refused');
    const expected = decide(createPolicySet([loaded.policy]), EVENT, OPTIONS).explanation;
    for (const source of [{ xml: XML, tree: treeOf(XML) }, { xml: XML }]) {
      const policy = sourceless(XML);
      const set = createPolicySet([policy]);
      expect(provideExplanationSource(policy, source)).toBe(true);
      expect(explanationSourcesNeeded(set, 'urn:action:acme:act')).toEqual([]);
      expect(decide(set, EVENT, OPTIONS).explanation).toEqual(expected);
    }
  });

  it('refuses the document of another policy or one that does not load', () => {
    const policy = sourceless(XML);
    expect(provideExplanationSource(policy, { xml: OTHER, tree: treeOf(OTHER) })).toBe(false);
    expect(provideExplanationSource(policy, { xml: '<policy' })).toBe(false);
    expect(explanationSourcesNeeded(createPolicySet([policy]), 'urn:action:acme:act')).toEqual(['urn:policy:acme:test']);
  });
});
