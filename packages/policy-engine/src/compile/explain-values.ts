import type { ValidExpression } from '../ast/valid/expressions';
import type { CompiledExpression } from '../functions/evaluation';
import { explained } from '../functions/explained';
import type { CompileScope } from './scope';

/** Where an explaining compile is: the recorded element whose operands are being compiled, and how deep. */
export interface ExplainState {
  nextId: number;
  parent: { readonly id: number; next: number } | null;
  depth: number;
}

export const newExplainState = (): ExplainState => ({ nextId: 0, parent: null, depth: 0 });

/**
 * Compiles one expression of an explaining program (policy-language.md §7.5): a comparison, function or arithmetic
 * element records its operands' values, and every direct operand of one reports its value with where it came from.
 * Operands of anything else (and, or, pip parameters, history filters) report nothing: their values show elsewhere.
 */
export function compileExplained(
  expression: ValidExpression,
  scope: CompileScope,
  state: ExplainState,
  compileNode: (expression: ValidExpression, scope: CompileScope) => CompiledExpression,
): CompiledExpression {
  const parent = state.parent;
  const position = parent === null ? -1 : parent.next++;
  const element = recordedElement(expression);
  const own = element === null ? null : { id: state.nextId++, next: 0 };
  const depth = state.depth;
  state.parent = own;
  if (own !== null) state.depth += 1;
  let compiled: CompiledExpression;
  try {
    compiled = compileNode(expression, scope);
  } finally {
    state.parent = parent;
    state.depth = depth;
  }
  if (parent === null && own === null) return compiled;
  const evaluate = explained(compiled.evaluate, {
    parentId: parent === null ? null : parent.id,
    position,
    source: sourceOf(expression),
    own: own === null || element === null ? null : { id: own.id, element, depth },
  });
  // Still synchronous when the wrapped closure is: the wrapper returns a promise only when it was given one.
  return { mode: compiled.mode, type: compiled.type, evaluate } as CompiledExpression;
}

/** The element name an explanation shows for the elements it records; null for the others. */
function recordedElement(expression: ValidExpression): string | null {
  switch (expression.kind) {
    case 'comparison':
    case 'arithmetic':
      return expression.operator;
    case 'equals':
    case 'size':
    case 'concat':
    case 'regex':
    case 'contains':
    case 'eventHasParameter':
      return expression.kind;
    default:
      return null;
  }
}

function sourceOf(expression: ValidExpression): string {
  switch (expression.kind) {
    case 'event':
      return `event \`${expression.parameter}\`${expression.path === null ? '' : ` at \`${expression.path.text}\``}`;
    case 'pip':
      return `pip \`${expression.method}\``;
    case 'variable':
      return `variable \`${expression.declaration.name}\``;
    case 'count':
      return `count of \`${expression.history.occurrence.action}\``;
    case 'continuousOccurrence':
      return `continuousOccurrence of \`${expression.history.occurrence.action}\``;
    case 'valueChanged':
      return `valueChanged \`${expression.id}\``;
    case 'execute':
      return `execute \`${expression.execute.action}\``;
    case 'comparison':
    case 'arithmetic':
      return expression.operator;
    default:
      return expression.kind;
  }
}
