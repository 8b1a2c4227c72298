import type { JsonValue } from '../ast/value-types';
import { deepEqual } from './deep-equal';
import { EvaluationFailure, isFailure, traced, type EvaluateAsync } from './evaluation';
import { then } from './maybe';
import { callPort, PORT_FAILED } from './ports-call';

export interface ValueChangedSpec {
  readonly policyId: string;
  readonly id: string;
  /** The `to` literal, or null. */
  readonly to: JsonValue | null;
  readonly child: EvaluateAsync<JsonValue>;
}

/**
 * `valueChanged:T` (policy-language.md §6): true when the child's value differs from the one stored for
 * (policy, id) — the first evaluation counts as a change — and, with `to`, the new value equals `to`. The store
 * compares and updates atomically; explanations only compare. State that cannot be read fails the mechanism.
 */
export function valueChanged(spec: ValueChangedSpec): EvaluateAsync<JsonValue> {
  return (context) =>
    then(spec.child(context), (value) => {
      if (isFailure(value)) return value;
      const history = context.request.ports?.history;
      if (history === undefined) return new EvaluationFailure(`no event history is available for \`valueChanged\` \`${spec.id}\``);
      const store = !context.request.explain;
      return callPort(() => history.valueChanged({ policyId: spec.policyId, id: spec.id, value, store })).then((changed) => {
        if (changed === PORT_FAILED || typeof changed !== 'boolean') {
          return new EvaluationFailure(`the state of \`valueChanged\` \`${spec.id}\` could not be read`);
        }
        traced(context, 'valueChanged', { id: spec.id, changed, stored: store && changed });
        return changed && (spec.to === null || deepEqual(value, spec.to));
      });
    });
}
