import { thrownFailure, type EvaluationFailure } from './evaluation';

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
 *
 * The answer never throws and its promise never rejects: an exception from a step, or a yielded promise that
 * rejects, ends the walk as an `EvaluationFailure`. Every promise met is given both handlers, so none is left
 * floating to surface as an unhandled rejection after the decision.
 */
export function drive<T>(steps: Generator<unknown, T | EvaluationFailure, unknown>): MaybePromise<T | EvaluationFailure> {
  return advance(steps, undefined);
}

function advance<T>(steps: Generator<unknown, T | EvaluationFailure, unknown>, input: unknown): MaybePromise<T | EvaluationFailure> {
  let next = input;
  for (;;) {
    let step: IteratorResult<unknown, T | EvaluationFailure>;
    try {
      step = steps.next(next);
    } catch (error) {
      return thrownFailure(error);
    }
    if (step.done === true) return step.value;
    if (step.value instanceof Promise) {
      return step.value.then(
        (resolved) => advance(steps, resolved),
        (error: unknown) => thrownFailure(error),
      );
    }
    next = step.value;
  }
}

/** Applies `next` now or when the value arrives. */
export function then<A, B>(value: MaybePromise<A>, next: (ready: A) => MaybePromise<B>): MaybePromise<B> {
  return value instanceof Promise ? value.then(next) : next(value);
}
