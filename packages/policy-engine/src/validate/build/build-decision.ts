import type { ElementNode } from '../../ast/nodes';
import type { ValidDecision, ValidModify } from '../../ast/valid/policy';
import { readDelayMilliseconds } from '../../parse/delay';
import { pathOf } from './build-family';
import { buildExecute, buildParameters } from './build-parameters';
import type { BuildScope } from './build-scope';
import { childNamed, childrenNamed, gap, optionalText, text, valueOfRead } from './read-node';

/** A `then` or `else` (policy-language.md §3 Decision). */
export function buildDecision(node: ElementNode, scope: BuildScope): ValidDecision {
  const delay = childNamed(node, 'delay');
  return {
    location: node.location,
    verdict: verdictOf(node),
    modifiers: childrenNamed(node, 'modify').map((modify) => buildModify(modify, scope)),
    delayMs: delay === null ? null : valueOfRead(delay, 'amount', readDelayMilliseconds(text(delay, 'amount'), text(delay, 'unit'))),
    executions: childrenNamed(node, 'execute').map((execute) => buildExecute(execute, scope)),
  };
}

/** The structure pass allows one `allow` or one `inhibit`, never both. */
function verdictOf(node: ElementNode): ValidDecision['verdict'] {
  const verdicts = node.children.filter((child) => child.name === 'allow' || child.name === 'inhibit');
  const [verdict] = verdicts;
  if (verdict === undefined) return null;
  if (verdicts.length > 1) gap(node, 'has more than one verdict');
  return { kind: verdict.name === 'allow' ? 'allow' : 'inhibit', reason: optionalText(verdict, 'reason') };
}

function buildModify(node: ElementNode, scope: BuildScope): ValidModify {
  return {
    location: node.location,
    eventParameter: text(node, 'eventParameter'),
    method: text(node, 'method'),
    path: pathOf(node),
    reason: optionalText(node, 'reason'),
    parameters: buildParameters(node, scope),
  };
}
