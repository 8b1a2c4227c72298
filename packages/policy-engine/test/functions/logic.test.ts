import { equals } from '../../src/functions/equals';
import { EvaluationFailure, type Evaluate, type EvaluationContext } from '../../src/functions/evaluation';
import { and, not, or } from '../../src/functions/logic';
import { contextFor, event } from '../support/policies';

const context: EvaluationContext = contextFor(event());
const failure = new EvaluationFailure('boom');

/** A child that records that it ran. */
function recorder<T>(value: T | EvaluationFailure, log: string[], name: string): Evaluate<T> {
  return () => {
    log.push(name);
    return value;
  };
}

describe('and / or', () => {
  it('short-circuit left to right, so a later failure is never reached', () => {
    const log: string[] = [];
    expect(and([recorder(true, log, 'a'), recorder(false, log, 'b'), recorder<boolean>(failure, log, 'c')], false)(context)).toBe(false);
    expect(or([recorder(false, log, 'd'), recorder(true, log, 'e'), recorder<boolean>(failure, log, 'f')], false)(context)).toBe(true);
    expect(log).toEqual(['a', 'b', 'd', 'e']);
  });

  it('in EAGER mode evaluate every child, so a failure anywhere fails the expression', () => {
    const log: string[] = [];
    expect(and([recorder(false, log, 'a'), recorder<boolean>(failure, log, 'b')], true)(context)).toBe(failure);
    expect(or([recorder(true, log, 'c'), recorder<boolean>(failure, log, 'd')], true)(context)).toBe(failure);
    expect(log).toEqual(['a', 'b', 'c', 'd']);
    expect(and([recorder(true, log, 'x'), recorder(false, log, 'y')], true)(context)).toBe(false);
    expect(or([recorder(false, log, 'x'), recorder(true, log, 'y')], true)(context)).toBe(true);
  });

  it('pass on a failure met before the answer is known', () => {
    expect(and([() => failure, () => false], false)(context)).toBe(failure);
    expect(or([() => failure, () => true], false)(context)).toBe(failure);
  });

  it.each([
    [[true], true, true],
    [[false], false, false],
    [[true, true, true], true, true],
    [[true, false, true], false, true],
    [[false, false], false, false],
  ])('over %j: and is %s, or is %s, in both modes', (values, conjunction, disjunction) => {
    const children = values.map((value) => () => value);
    for (const eager of [false, true]) {
      expect(and(children, eager)(context)).toBe(conjunction);
      expect(or(children, eager)(context)).toBe(disjunction);
    }
  });
});

describe('not', () => {
  it('negates and passes failures on', () => {
    expect(not(() => true)(context)).toBe(false);
    expect(not(() => false)(context)).toBe(true);
    expect(not(() => failure)(context)).toBe(failure);
  });
});

describe('equals', () => {
  it('is true when every child equals the first', () => {
    expect(equals([() => 1, () => 1.0, () => 1])(context)).toBe(true);
    expect(equals([() => 1, () => 1, () => 2])(context)).toBe(false);
    expect(equals([() => ({ a: [1] }), () => ({ a: [1] })])(context)).toBe(true);
  });

  it('evaluates every child, so a failure is not hidden by an earlier mismatch', () => {
    expect(equals([() => 1, () => 2, () => failure])(context)).toBe(failure);
  });
});
