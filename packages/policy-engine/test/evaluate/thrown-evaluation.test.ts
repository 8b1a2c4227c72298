import { createPolicySet, decide, type CompiledPolicy } from '../../src';
import type { MechanismProgram } from '../../src/compile/program';
import { registerProgram } from '../../src/compile/registry';
import { asyncExpression, syncExpression, type CompiledExpression, type EvaluateAsync } from '../../src/functions/evaluation';
import { strict } from '../../src/functions/strict';
import { newVariableSlot, variableValue } from '../../src/functions/variables';
import { event, mustLoad, OPTIONS, policyXml } from '../support/policies';
import { FixturePip } from '../support/ports';

/**
 * A compiled operand that throws (a bug, or a program the tree reader should have refused) must fail its mechanism
 * closed, as an evaluation failure with a message, and leave no promise rejecting unobserved after the decision:
 * node ends the process on an unhandled rejection.
 */

const ACTION = 'urn:action:acme:act';

/** A number known only after a wait, so the operands after it are evaluated on the asynchronous path. */
const later: CompiledExpression = asyncExpression('number', () => Promise.resolve(1));

/** A policy whose one mechanism has `condition` as its `if`, with `inhibit` when true and `allow` otherwise. */
function policyWith(condition: EvaluateAsync<boolean>): CompiledPolicy {
  // A real compiled policy supplies the metadata (its action, that it uses ports); its program is then replaced.
  const pip = '<pip:boolean method="urn:info:acme:flag" default="false"/>';
  const policy = mustLoad(policyXml(`<mechanism event="${ACTION}"><if>${pip}<then><inhibit/></then></if><else><allow/></else></mechanism>`));
  const allow = { verdict: 'allow', reason: null, delayMs: 0, modifiers: [], executions: [] } as const;
  const mechanism: MechanismProgram = {
    policyId: policy.id,
    index: 0,
    event: ACTION,
    mode: 'async',
    branches: [{ kind: 'if', index: 0, condition, decision: { ...allow, verdict: 'inhibit' } }],
    otherwise: allow,
    executions: [],
  };
  registerProgram(policy, { policyId: policy.id, mechanisms: [mechanism] });
  return policy;
}

/** `later = operand`, through a variable, as a declaration compiles. */
function conditionOver(operand: CompiledExpression): EvaluateAsync<boolean> {
  const comparison = strict('boolean', [later, operand], (values) => values[0] === values[1]);
  return variableValue(newVariableSlot(), comparison.evaluate) as EvaluateAsync<boolean>;
}

describe('an operand that throws on the asynchronous path', () => {
  const rejections: unknown[] = [];
  const record = (reason: unknown) => rejections.push(reason);
  beforeEach(() => {
    rejections.length = 0;
    process.on('unhandledRejection', record);
  });
  afterEach(() => {
    process.off('unhandledRejection', record);
  });

  /** Node reports unhandled rejections once the microtasks of a turn have run; the next turn is after that point. */
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

  it.each<[string, CompiledExpression, string]>([
    [
      'throws',
      syncExpression('number', () => {
        throw new TypeError('boom');
      }),
      'boom',
    ],
    ['rejects', asyncExpression('number', () => Promise.reject(new TypeError('boom'))), 'boom'],
    // The shape of a program compiled from an operand list with a hole in it, before the tree reader refused those.
    ['has no closure', { mode: 'sync', type: 'number', evaluate: undefined } as unknown as CompiledExpression, 'evaluate is not a function'],
  ])('fails its mechanism closed when the operand %s', async (_, operand, problem) => {
    const decision = await decide(createPolicySet([policyWith(conditionOver(operand))]), event(), OPTIONS, { pip: new FixturePip([]) });
    // The default is allow and the `else` allows: only the failure can make this an inhibit.
    expect(decision.allowed).toBe(false);
    expect(decision.errors).toEqual([{ policyId: 'urn:policy:acme:test', mechanism: 0, message: `internal error: ${problem}` }]);
    await nextTurn();
    expect(rejections).toEqual([]);
  });
});
