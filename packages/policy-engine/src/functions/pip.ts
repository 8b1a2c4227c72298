import type { NamedValue } from '../api';
import type { JsonValue, ValueType } from '../ast/value-types';
import type { PipAnswer } from '../evaluate/ports';
import { canonicalJson } from './canonical-json';
import { coerce } from './coerce';
import { isFailure, traced, type EvaluateAsync, type EvaluationContext } from './evaluation';
import { then } from './maybe';
import { evaluateParameters, type ParameterProgram } from './parameters';
import { callPort, PORT_FAILED } from './ports-call';

export interface PipSpec {
  readonly method: string;
  readonly solution: string;
  readonly type: ValueType;
  readonly defaultValue: JsonValue;
  readonly ttlMs: number | null;
  readonly parameters: readonly ParameterProgram[];
}

/**
 * `pip:T` (policy-language.md §8): the resolver's answer when it has the element's type (numeric and boolean strings
 * are accepted as for event parameters), else `default` — no resolver, a failure, a rejection, null, a wrong type.
 * Within one request the same (method, parameters) is asked once; later elements share the answer. A parameter
 * that fails to evaluate is the policy's own error, not the PIP's: it fails the mechanism.
 */
export function pipValue(spec: PipSpec): EvaluateAsync<JsonValue> {
  const what = `the answer of pip \`${spec.method}\``;
  return (context) =>
    then(evaluateParameters(spec.parameters, context), (parameters) => {
      if (isFailure(parameters)) return parameters;
      const resolver = context.request.ports?.pip;
      if (resolver === undefined) return fallback(context, spec, parameters, 'no pip resolver is available', false);
      const key = `${spec.method}\u0000${canonicalJson(parameters)}`;
      const answers = (context.request.pipAnswers ??= new Map());
      let pending: Promise<PipAnswer> | undefined = answers.get(key);
      const repeated = pending !== undefined;
      if (pending === undefined) {
        pending = callPort(() => resolver.resolve(spec.method, parameters, { solution: spec.solution, ttlMs: spec.ttlMs })).then(
          (answer): PipAnswer => (answer === PORT_FAILED || !isAnswer(answer) ? { ok: false } : answer),
        );
        answers.set(key, pending);
      }
      return pending.then((answer: PipAnswer) => {
        const cached = repeated || answer.cached === true;
        if (!answer.ok) return fallback(context, spec, parameters, 'the pip failed', cached);
        if (answer.value === null || answer.value === undefined) return fallback(context, spec, parameters, 'the pip answered null', cached);
        const value = coerce(spec.type, answer.value, what);
        if (isFailure(value)) return fallback(context, spec, parameters, value.message, cached);
        traced(context, 'pip', { method: spec.method, parameters, value, usedDefault: false, cached });
        return value;
      });
    });
}

function fallback(context: EvaluationContext, spec: PipSpec, parameters: NamedValue[], reason: string, cached: boolean): JsonValue {
  traced(context, 'pip', { method: spec.method, parameters, value: spec.defaultValue, usedDefault: true, reason, cached });
  return spec.defaultValue;
}

function isAnswer(answer: unknown): answer is PipAnswer {
  return typeof answer === 'object' && answer !== null && typeof (answer as { ok?: unknown }).ok === 'boolean';
}
