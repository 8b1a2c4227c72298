import type { ElementNode } from '../ast/nodes';
import { readDelayMilliseconds } from '../parse/delay';
import { optionalAttribute, requiredAttribute, validated } from './attributes';
import { compileParameters } from './compile-parameters';
import type { DecisionProgram, ExecutionProgram, ModifierProgram } from './program';
import type { CompileScope } from './scope';

/** A `then` or `else` (policy-language.md §3 Decision). */
export function compileDecision(node: ElementNode, scope: CompileScope): DecisionProgram {
  const allow = node.children.find((child) => child.name === 'allow');
  const inhibit = node.children.find((child) => child.name === 'inhibit');
  const modifiers = node.children.filter((child) => child.name === 'modify').map((child) => compileModifier(child, scope));
  const delay = node.children.find((child) => child.name === 'delay');
  const verdict = inhibit !== undefined ? 'inhibit' : allow !== undefined || modifiers.length > 0 ? 'allow' : 'none';
  const verdictElement = inhibit ?? allow;
  return {
    verdict,
    reason: verdictElement === undefined ? null : optionalAttribute(verdictElement, 'reason'),
    delayMs: delay === undefined ? 0 : compileDelay(delay),
    modifiers,
    executions: compileExecutions(node, scope),
  };
}

/** `execute` in a decision or directly under a mechanism: planned, run by the pdp after the decision. */
export function compileExecutions(owner: ElementNode, scope: CompileScope): ExecutionProgram[] {
  return owner.children
    .filter((child) => child.name === 'execute')
    .map((execute) => ({ action: requiredAttribute(execute, 'action'), parameters: compileParameters(execute, scope) }));
}

function compileModifier(node: ElementNode, scope: CompileScope): ModifierProgram {
  return {
    eventParameter: requiredAttribute(node, 'eventParameter'),
    expression: optionalAttribute(node, 'jsonPathQuery') ?? '$',
    method: requiredAttribute(node, 'method'),
    reason: optionalAttribute(node, 'reason'),
    parameters: compileParameters(node, scope),
  };
}

function compileDelay(node: ElementNode): number {
  return validated(readDelayMilliseconds(requiredAttribute(node, 'amount'), requiredAttribute(node, 'unit')), node);
}
