import type { JSONPathQuery, JSONValue } from 'json-p3';
import type { JsonValue, ValueType } from '../ast/value-types';
import { applySimplePath, readSimplePath } from '../parse/simple-path';
import { coerce } from './coerce';
import { deepFreeze } from './constant';
import { EvaluationFailure, type Evaluate } from './evaluation';

export interface EventValueSpec {
  readonly type: ValueType;
  readonly parameter: string;
  readonly defaultValue: JsonValue;
  /** Compiled once at load; null when the element has no `jsonPathQuery`. */
  readonly path: { readonly text: string; readonly query: JSONPathQuery } | null;
}

/**
 * `event:T` (policy-language.md §4): the parameter, or the value at the path inside it; the default when either is
 * missing (a JSON null counts as missing). A path that can select several nodes yields them all for `event:list`;
 * for anything else several selected nodes are an error.
 */
export function eventValue(spec: EventValueSpec): Evaluate<JsonValue> {
  const { type, parameter, path } = spec;
  const defaultValue = deepFreeze(spec.defaultValue);
  const what = `event parameter \`${parameter}\``;
  if (path === null) {
    return (context) => {
      const raw = context.event.parameters.get(parameter);
      return raw === undefined || raw === null ? defaultValue : coerce(type, raw, what);
    };
  }
  const whatAtPath = `the value at \`${path.text}\` in ${what}`;
  const steps = readSimplePath(path.text);
  if (steps !== null) {
    // The common `$.a.b` / `$['a']` / `$.a[0]`: plain property access, same answer as the general engine.
    return (context) => {
      const raw = context.event.parameters.get(parameter);
      if (raw === undefined || raw === null) return defaultValue;
      const selected = applySimplePath(steps, raw);
      return selected === undefined || selected === null ? defaultValue : coerce(type, selected, whatAtPath);
    };
  }
  const collectsAll = type === 'list' && !path.query.singularQuery();
  return (context) => {
    const raw = context.event.parameters.get(parameter);
    if (raw === undefined || raw === null) return defaultValue;
    let nodes;
    try {
      nodes = path.query.query(raw as JSONValue);
    } catch {
      // Only the recursion limit of `..` can throw here: a pathological parameter, not a bug.
      return new EvaluationFailure(`jsonPathQuery \`${path.text}\` could not be applied to ${what}`);
    }
    if (collectsAll) return nodes.values() as JsonValue[];
    if (nodes.length === 0) return defaultValue;
    if (nodes.length > 1) {
      return new EvaluationFailure(`jsonPathQuery \`${path.text}\` selected ${nodes.length} values in ${what} where one is needed`);
    }
    const selected = nodes.nodes[0]?.value ?? null;
    return selected === null ? defaultValue : coerce(type, selected, whatAtPath);
  };
}
