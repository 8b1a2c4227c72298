import type { CompiledPolicy } from '../../src';
import { createPolicySet, decide, emptyPolicySet } from '../../src';
import { event, mustLoad, OPTIONS, policyXml } from '../support/policies';

/** A policy whose mechanisms each inhibit one action and say which policy they are through the reason. */
function policy(name: string, actions: string[]): CompiledPolicy {
  const mechanisms = actions
    .map((action) => `<mechanism event="urn:action:acme:${action}"><if><constant:true/><then><inhibit reason="${name}"/></then></if></mechanism>`)
    .join('\n');
  return mustLoad(policyXml(mechanisms, `urn:policy:acme:${name}`));
}

const matched = (set: ReturnType<typeof emptyPolicySet>, action: string) =>
  decide(set, event({}, `urn:action:acme:${action}`), OPTIONS).matchedPolicies;

describe('policy sets', () => {
  it('start empty and decide by default', () => {
    const set = emptyPolicySet();
    expect(set.size).toBe(0);
    expect(decide(set, event(), OPTIONS)).toEqual({
      allowed: true,
      decided: false,
      modifiers: [],
      delayMs: 0,
      executions: [],
      matchedPolicies: [],
      errors: [],
    });
  });

  it('index policies by id and mechanisms by action', () => {
    const first = policy('one', ['read', 'write']);
    const second = policy('two', ['write']);
    const set = createPolicySet([second, first]);
    expect(set.size).toBe(2);
    expect(set.has('urn:policy:acme:one')).toBe(true);
    expect(set.get('urn:policy:acme:two')).toBe(second);
    expect(set.get('urn:policy:acme:three')).toBeUndefined();
    expect(matched(set, 'read')).toEqual(['urn:policy:acme:one']);
    expect(matched(set, 'write')).toEqual(['urn:policy:acme:one', 'urn:policy:acme:two']);
    expect(matched(set, 'delete')).toEqual([]);
  });

  it('are immutable: with and without return new sets and leave the old one as it was', () => {
    const original = createPolicySet([policy('one', ['read'])]);
    const grown = original.with([policy('two', ['read'])]);
    const shrunk = grown.without(['urn:policy:acme:one']);
    expect(matched(original, 'read')).toEqual(['urn:policy:acme:one']);
    expect(matched(grown, 'read')).toEqual(['urn:policy:acme:one', 'urn:policy:acme:two']);
    expect(matched(shrunk, 'read')).toEqual(['urn:policy:acme:two']);
    expect(original.size).toBe(1);
  });

  it('replace a policy by id, dropping the actions it no longer has', () => {
    const set = createPolicySet([policy('one', ['read', 'write'])]).with([policy('one', ['delete'])]);
    expect(set.size).toBe(1);
    expect(matched(set, 'read')).toEqual([]);
    expect(matched(set, 'write')).toEqual([]);
    expect(matched(set, 'delete')).toEqual(['urn:policy:acme:one']);
  });

  it('let the last of several policies with one id win', () => {
    const set = createPolicySet([policy('one', ['read']), policy('one', ['write'])]);
    expect(matched(set, 'read')).toEqual([]);
    expect(matched(set, 'write')).toEqual(['urn:policy:acme:one']);
  });

  it('ignore unknown ids when removing', () => {
    const set = createPolicySet([policy('one', ['read'])]);
    expect(set.without(['urn:policy:acme:nope'])).toBe(set);
  });

  it('evaluate only the mechanisms of the event action, however many other policies there are', () => {
    const others = Array.from({ length: 2000 }, (_, index) => policy(`other${index}`, [`action${index}`]));
    const set = createPolicySet([...others, policy('target', ['read'])]);
    const decision = decide(set, event({}, 'urn:action:acme:read'), { ...OPTIONS, explain: true });
    expect(decision.explanation?.map((item) => item.policyId)).toEqual(['urn:policy:acme:target']);
    expect(decision.allowed).toBe(false);
  });

  it('refuse objects that did not come from loadPolicy', () => {
    const forged: CompiledPolicy = {
      id: 'urn:policy:acme:x',
      solution: 'acme',
      name: null,
      description: null,
      actions: [],
      historyActions: [],
      usesHistory: false,
      maxHistorySpanMs: 0,
      historyFilters: [],
      usesPorts: false,
    };
    expect(() => createPolicySet([forged])).toThrow(TypeError);
    expect(() => decide({ size: 0, has: () => false, get: () => undefined, with: () => emptyPolicySet(), without: () => emptyPolicySet() }, event(), OPTIONS)).toThrow(
      TypeError,
    );
  });

  it('hand out frozen policy metadata', () => {
    const loaded = policy('one', ['read', 'read', 'write']);
    expect(loaded).toEqual({
      id: 'urn:policy:acme:one',
      solution: 'acme',
      name: null,
      description: null,
      actions: ['urn:action:acme:read', 'urn:action:acme:write'],
      historyActions: [],
      usesHistory: false,
      maxHistorySpanMs: 0,
      historyFilters: [],
      usesPorts: false,
    });
    expect(Object.isFrozen(loaded)).toBe(true);
    expect(Object.isFrozen(loaded.actions)).toBe(true);
  });
});
