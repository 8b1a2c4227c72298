import type { JsonValue } from '../ast/value-types';
import { isFailure, type Evaluate, type EvaluateAsync, type EvaluationContext, type EvaluationFailure } from './evaluation';
import { drive } from './maybe';

/**
 * `and` / `or` (policy-language.md §5): left to right, stopping at the first deciding child unless `mode="EAGER"`,
 * which evaluates every child so that an error anywhere is seen. A failing child fails the whole expression.
 */
export function and(children: ReadonlyArray<Evaluate<boolean>>, eager: boolean): Evaluate<boolean> {
  return eager ? eagerFold(children, true) : (context) => {
    for (const child of children) {
      const value = child(context);
      if (value !== true) return value;
    }
    return true;
  };
}

export function or(children: ReadonlyArray<Evaluate<boolean>>, eager: boolean): Evaluate<boolean> {
  return eager ? eagerFold(children, false) : (context) => {
    for (const child of children) {
      const value = child(context);
      if (value !== false) return value;
    }
    return false;
  };
}

/** Evaluates all children; `identity` is true for `and`, false for `or`. */
function eagerFold(children: ReadonlyArray<Evaluate<boolean>>, identity: boolean): Evaluate<boolean> {
  return (context) => {
    let result = identity;
    for (const child of children) {
      const value = child(context);
      if (isFailure(value)) return value;
      if (value !== identity) result = !identity;
    }
    return result;
  };
}

/** `and`/`or` over children of which some wait for a port; the same rules, one child at a time. */
export function foldAsync(children: ReadonlyArray<EvaluateAsync<boolean>>, identity: boolean, eager: boolean): EvaluateAsync<boolean> {
  return (context) => drive(foldSteps(children, identity, eager, context));
}

function* foldSteps(
  children: ReadonlyArray<EvaluateAsync<boolean>>,
  identity: boolean,
  eager: boolean,
  context: EvaluationContext,
): Generator<unknown, boolean | EvaluationFailure, unknown> {
  let result = identity;
  for (const child of children) {
    const value = (yield child(context)) as boolean | EvaluationFailure;
    if (isFailure(value)) return value;
    if (value !== identity) {
      if (!eager) return value;
      result = !identity;
    }
  }
  return result;
}

export function not(child: Evaluate<boolean>): Evaluate<boolean> {
  return (context) => {
    const value = child(context);
    return isFailure(value) ? value : !value;
  };
}

/** `implies` = `!a || b`, short-circuit like `or`: `b` is not evaluated when `a` is false. */
export function implies(premise: Evaluate<boolean>, conclusion: Evaluate<boolean>): Evaluate<boolean> {
  return (context) => {
    const value = premise(context);
    if (value !== true) return isFailure(value) ? value : true;
    return conclusion(context);
  };
}

export function impliesAsync(premise: EvaluateAsync<boolean>, conclusion: EvaluateAsync<boolean>): EvaluateAsync<boolean> {
  return (context) => drive(impliesSteps(premise, conclusion, context));
}

function* impliesSteps(
  premise: EvaluateAsync<boolean>,
  conclusion: EvaluateAsync<boolean>,
  context: EvaluationContext,
): Generator<unknown, boolean | EvaluationFailure, unknown> {
  const value = (yield premise(context)) as boolean | EvaluationFailure;
  if (value !== true) return isFailure(value) ? value : true;
  return (yield conclusion(context)) as boolean | EvaluationFailure;
}

/** `xor`: true when an odd number of children is true (all are evaluated). */
export function xorOf(values: readonly JsonValue[]): boolean {
  let odd = false;
  for (const value of values) if (value === true) odd = !odd;
  return odd;
}
