/**
 * Values that are ready now or later. Closures of mechanisms that use a port return `MaybePromise`s: a promise only
 * where a port was really asked, so a missing port (or a pip answered from the request's own cache) stays
 * synchronous. Language values are JSON values, never promises, so `instanceof Promise` tells them apart.
 */
export type MaybePromise<T> = T | Promise<T>;

export function isPromise(value: unknown): value is Promise<unknown> {
  return value instanceof Promise;
}

/**
 * Runs a generator whose `yield`s are `MaybePromise`s, feeding each resolved value back in. Synchronous until the
 * first real promise, then continues in `.then`. This keeps asynchronous combinators as readable as plain loops.
 */
export function drive<T>(steps: Generator<unknown, T, unknown>): MaybePromise<T> {
  return advance(steps, undefined);
}

function advance<T>(steps: Generator<unknown, T, unknown>, input: unknown): MaybePromise<T> {
  let next = input;
  for (;;) {
    const step = steps.next(next);
    if (step.done === true) return step.value;
    if (step.value instanceof Promise) return step.value.then((resolved) => advance(steps, resolved));
    next = step.value;
  }
}

/** Applies `next` now or when the value arrives. */
export function then<A, B>(value: MaybePromise<A>, next: (ready: A) => MaybePromise<B>): MaybePromise<B> {
  return value instanceof Promise ? value.then(next) : next(value);
}
