import type { JsonValue } from '../ast/value-types';
import { EvaluationFailure, isFailure, traced, type EvaluateAsync } from './evaluation';
import { then } from './maybe';
import { evaluateParameters, type ParameterProgram } from './parameters';
import { callPort, PORT_FAILED } from './ports-call';

export interface ConditionExecuteSpec {
  readonly action: string;
  readonly solution: string;
  readonly parameters: readonly ParameterProgram[];
}

/**
 * `execute` inside a condition (policy-language.md §5): a synchronous PXP call whose answer is the value; anything but
 * `true` (false, a failure, a rejection) is false. No executor at all is a missing port: the mechanism fails closed.
 * While explaining nothing is called (api.md §3) and the value is false.
 */
export function conditionExecute(spec: ConditionExecuteSpec): EvaluateAsync<JsonValue> {
  return (context) =>
    then(evaluateParameters(spec.parameters, context), (parameters) => {
      if (isFailure(parameters)) return parameters;
      if (context.request.explain) {
        traced(context, 'conditionExecutions', { action: spec.action, parameters, called: false, answer: false });
        return false;
      }
      const executor = context.request.ports?.pxp;
      if (executor === undefined) return new EvaluationFailure(`no pxp executor is available for \`execute\` of \`${spec.action}\``);
      return callPort(() => executor.execute(spec.action, parameters, { solution: spec.solution })).then((answer) => {
        const value = answer !== PORT_FAILED && answer === true;
        traced(context, 'conditionExecutions', { action: spec.action, parameters, called: true, answer: value });
        return value;
      });
    });
}
