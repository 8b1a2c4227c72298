import { createPolicySet, decide, loadCompiledTree, loadPolicyTree, type CompiledPolicy, type DecideOptions } from '../../src';
import type { ValidExpression } from '../../src/ast/valid/expressions';
import { sharedCondition } from '../../src/compile/shared-conditions';
import { syncExpression } from '../../src/functions/evaluation';
import { policyXml } from '../support/policies';

/** Policies with the same pure condition share its compiled closures (issue 26); nothing else may change. */

const OPTIONS: DecideOptions = { defaultDecision: 'allow', timeZone: 'UTC' };

function compiled(name: string, action: string, condition: string): CompiledPolicy {
  const xml = policyXml(`<mechanism event="urn:action:acme:${action}"><if>${condition}<then><inhibit reason="${name}"/></then></if></mechanism>`, `urn:policy:acme:${name}`);
  const tree = loadPolicyTree(xml);
  if (!tree.ok) throw new Error(`refused: ${JSON.stringify(tree.diagnostics)}`);
  const outcome = loadCompiledTree(JSON.parse(JSON.stringify(tree.tree)) as unknown, { keepExplainingSource: false });
  if (!outcome.ok) throw new Error('refused');
  return outcome.policy;
}

const eventOf = (action: string, user: unknown) => ({ action: `urn:action:acme:${action}`, timestamp: 0, parameters: new Map<string, unknown>([['user', user]]) });
const allowed = (policies: CompiledPolicy[], action: string, user: unknown) => decide(createPolicySet(policies), eventOf(action, user), OPTIONS).allowed;

const isMallory = (value: string) =>
  `<equals><event:string eventParameter="user" jsonPathQuery="$.name" default=""/><constant:string value="${value}"/></equals>`;

describe('shared conditions', () => {
  it('compiles a pure condition once for every policy that has it', () => {
    const condition: ValidExpression = { kind: 'constant', type: 'string', value: 'shared-once', location: { line: 0 } };
    let compiles = 0;
    const compile = () => {
      compiles++;
      return syncExpression('boolean', () => true);
    };
    const first = sharedCondition(condition, compile);
    expect(sharedCondition({ ...condition }, compile)).toBe(first);
    expect(compiles).toBe(1);
  });

  it('compiles a condition that is not pure for each policy', () => {
    const condition: ValidExpression = { kind: 'constant', type: 'number', value: -0, location: { line: 0 } };
    let compiles = 0;
    const compile = () => {
      compiles++;
      return syncExpression('boolean', () => true);
    };
    expect(sharedCondition(condition, compile)).not.toBe(sharedCondition(condition, compile));
    expect(compiles).toBe(2);
  });

  it('keeps the decisions of policies that share a condition and of those whose conditions differ in one literal', () => {
    const policies = [compiled('p1', 'a1', isMallory('Mallory')), compiled('p2', 'a2', isMallory('Mallory')), compiled('p3', 'a3', isMallory('Eve'))];
    expect(allowed(policies, 'a1', { name: 'Mallory' })).toBe(false);
    expect(allowed(policies, 'a2', { name: 'Mallory' })).toBe(false);
    expect(allowed(policies, 'a2', { name: 'Ann' })).toBe(true);
    expect(allowed(policies, 'a3', { name: 'Mallory' })).toBe(true);
    expect(allowed(policies, 'a3', { name: 'Eve' })).toBe(false);
  });

  it('tells apart conditions that differ only in the path, the default or the parameter they read', () => {
    const read = (parameter: string, path: string, fallback: string) =>
      `<equals><event:string eventParameter="${parameter}" jsonPathQuery="${path}" default="${fallback}"/><constant:string value="x"/></equals>`;
    const policies = [compiled('q1', 'b1', read('user', '$.name', '')), compiled('q2', 'b2', read('user', '$.nick', '')), compiled('q3', 'b3', read('user', '$.name', 'x')), compiled('q4', 'b4', read('other', '$.name', ''))];
    const user = { name: 'x', nick: 'y' };
    expect([1, 2, 3, 4].map((n) => allowed(policies, `b${n}`, user))).toEqual([false, true, false, true]);
    expect(allowed(policies, 'b3', {})).toBe(false);
    expect(allowed(policies, 'b1', {})).toBe(true);
  });
});
