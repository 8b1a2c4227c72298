import type { ValidParameter } from '../ast/valid/policy';
import { constant } from '../functions/constant';
import type { ParameterProgram } from '../functions/parameters';
import { compileExpression } from './compile-expression';
import type { CompileScope } from './scope';

/** `parameter:T` children of modify/execute/pip/eventOccurrence (policy-language.md §4). */
export function compileParameters(parameters: readonly ValidParameter[], scope: CompileScope): ParameterProgram[] {
  return parameters.map((parameter) => compileParameter(parameter, scope));
}

/** `value` wins over a child; neither is null. */
export function compileParameter(parameter: ValidParameter, scope: CompileScope): ParameterProgram {
  const { name, source } = parameter;
  switch (source.kind) {
    case 'literal':
      return { name, mode: 'sync', value: constant(source.value) };
    case 'none':
      return { name, mode: 'sync', value: constant(null) };
    case 'expression': {
      const compiled = compileExpression(source.expression, scope);
      return { name, mode: compiled.mode, value: compiled.evaluate };
    }
  }
}
