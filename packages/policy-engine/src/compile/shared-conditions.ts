import type { ValidExpression } from '../ast/valid/expressions';
import type { JsonValue } from '../ast/value-types';
import type { CompiledExpression } from '../functions/evaluation';

/**
 * Conditions that read only the event and literals compile to closures that hold nothing of their policy, and sets
 * made from templates repeat the same condition in thousands of policies (issue 26: the benchmark's 10,000 policies
 * share one). One compiled condition per distinct text serves all of them: less to compile and to collect at a cold
 * start, one closure tree in memory instead of thousands. Bounded, since conditions come from policies; when full it
 * starts again (as the tree reader's cache of JSONPath queries does).
 */
const LIMIT = 4096;
const shared = new Map<string, CompiledExpression>();

/** Deeper conditions are compiled on their own: a key that long costs more than the closures it would save. */
const MAX_DEPTH = 8;

/** The compiled `condition`, shared with every earlier policy whose condition is the same pure expression. */
export function sharedCondition(condition: ValidExpression, compile: () => CompiledExpression): CompiledExpression {
  const key = pureKey(condition, 0);
  if (key === null) return compile();
  const known = shared.get(key);
  if (known !== undefined) return known;
  const compiled = compile();
  if (shared.size >= LIMIT) shared.clear();
  shared.set(key, compiled);
  return compiled;
}

/**
 * A text naming the expression exactly, or null when it may read more than the event and literals (ports, history,
 * variables, the policy's identity) or is of a kind not listed here. Every atom is a letter and a JSON array, which
 * ends itself, and every list is bracketed, so two different expressions never get the same key.
 */
function pureKey(expression: ValidExpression, depth: number): string | null {
  if (depth > MAX_DEPTH) return null;
  switch (expression.kind) {
    case 'constant': {
      const value = literalKey(expression.value);
      return value === null ? null : `c[${JSON.stringify(expression.type)},${value}]`;
    }
    case 'event': {
      const fallback = literalKey(expression.defaultValue);
      if (fallback === null) return null;
      return `e[${JSON.stringify([expression.type, expression.parameter, expression.path?.text ?? null])},${fallback}]`;
    }
    case 'not': {
      const operand = pureKey(expression.operand, depth + 1);
      return operand === null ? null : `!(${operand})`;
    }
    case 'and':
    case 'or':
      return listKey(`${expression.kind}${expression.eager ? '!' : ''}`, expression.operands, depth);
    case 'equals':
      return listKey('=', expression.operands, depth);
    default:
      return null;
  }
}

function listKey(head: string, operands: readonly ValidExpression[], depth: number): string | null {
  const keys: string[] = [];
  for (const operand of operands) {
    const key = pureKey(operand, depth + 1);
    if (key === null) return null;
    keys.push(key);
  }
  return `${head}(${keys.join(',')})`;
}

/** A literal's JSON; null when it holds a -0, which JSON writes as 0 (a different number to `divide`). */
function literalKey(value: JsonValue): string | null {
  return holdsMinusZero(value) ? null : JSON.stringify(value);
}

function holdsMinusZero(value: JsonValue): boolean {
  if (typeof value === 'number') return Object.is(value, -0);
  if (typeof value !== 'object' || value === null) return false;
  return (Array.isArray(value) ? value : Object.values(value)).some(holdsMinusZero);
}
