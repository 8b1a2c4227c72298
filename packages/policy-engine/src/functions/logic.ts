import { isFailure, type Evaluate } from './evaluation';

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

export function not(child: Evaluate<boolean>): Evaluate<boolean> {
  return (context) => {
    const value = child(context);
    return isFailure(value) ? value : !value;
  };
}
