/**
 * An `/event/explain` answer as a tree a policy author reads top-down: the decision, then each policy that had a
 * mechanism for the event, each mechanism with the branch it took, the values of its conditions, what it
 * contributed (outcome, modifiers, delay, executes) and what it asked (PIPs, the event history, valueChanged).
 * Written against the wire shape, tolerating fields it does not know.
 */

import { depthOf, valueText, valuesOf } from '../output/value-lines';

interface Tree {
  text: string;
  children: Tree[];
}

type Json = Record<string, unknown>;

const node = (text: string, children: Tree[] = []): Tree => ({ text, children });
const asObject = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const show = (value: unknown): string => (value === undefined ? 'undefined' : JSON.stringify(value));
/** A string as it is, anything else as JSON. */
const text = (value: unknown): string => (typeof value === 'string' ? value : show(value));

/** A wire parameter `{name, value: {value, type, isComplex}}` as `name=value`. */
function parameterText(parameter: unknown): string {
  const p = asObject(parameter);
  const value = asObject(p.value);
  return `${text(p.name)}=${show('value' in value ? value.value : p.value)}`;
}

const callText = (name: unknown, parameters: unknown) => `${text(name)}(${asArray(parameters).map(parameterText).join(', ')})`;

function time(ms: unknown): string {
  return typeof ms === 'number' ? new Date(ms).toISOString() : 'the beginning';
}

const spanText = (span: unknown) => {
  const s = asObject(span);
  return `[${s.from === null ? 'the beginning' : time(s.from)}, ${time(s.to)})`;
};

function branchText(branch: unknown, outcome: unknown): string {
  const b = asObject(branch);
  if (b.kind === 'if') return 'if';
  if (b.kind === 'elseif') return `elseif #${typeof b.index === 'number' ? b.index + 1 : '?'}`;
  if (b.kind === 'else') return 'else';
  // A failed condition stops the walk: the else is not taken either.
  if (outcome === 'error') return 'none (a condition failed, see error)';
  return 'none (no condition was true and there is no else)';
}

/** Conditions are numbered by position: 0 is the `if`, n the n-th `elseif`; under each, the values it compared. */
function conditionTree(condition: unknown, values: unknown): Tree {
  const c = asObject(condition);
  const position = typeof c.branch === 'number' ? c.branch : -1;
  const which = position === 0 ? 'if' : `elseif #${position}`;
  return node(`${which}: ${c.value === null ? 'failed (see error)' : text(c.value)}`, valueTrees(valuesOf(values, position)));
}

/** Records in document order with their depth, as nested nodes. */
function valueTrees(records: readonly unknown[]): Tree[] {
  const roots: Tree[] = [];
  const open: Tree[] = [];
  for (const record of records) {
    const depth = Math.min(depthOf(record), open.length);
    const tree = node(valueText(record));
    const parent = depth === 0 ? undefined : open[depth - 1];
    if (parent === undefined) roots.push(tree);
    else parent.children.push(tree);
    open.length = depth;
    open.push(tree);
  }
  return roots;
}

function modifierText(modifier: unknown): string {
  const m = asObject(modifier);
  const engine = asObject(asArray(m.engine)[0]);
  const reason = typeof m.reason === 'string' ? ` — ${m.reason}` : '';
  return `${text(m.name)} ${text(m.expression)}: ${callText(engine.method, engine.parameters)}${reason}`;
}

function pipText(answer: unknown): string {
  const a = asObject(answer);
  const value = asObject(a.value);
  const used = a.usedDefault === true ? ` (default used${typeof a.reason === 'string' ? `: ${a.reason}` : ''})` : '';
  return `${callText(a.method, a.parameters)} = ${show(value.value)}${used}${a.cached === true ? ' [cached]' : ''}`;
}

function historyText(entry: unknown): Tree {
  const h = asObject(entry);
  const span = h.span === undefined ? '' : ` in ${spanText(h.span)}`;
  if (h.element === 'count') return node(`count of ${text(h.action)}${span}: ${text(h.count)}`);
  if (h.element === 'continuousOccurrence') {
    return node(
      `continuousOccurrence of ${text(h.action)}${span}`,
      asArray(h.windows).map((w) => node(`${spanText(w)}: ${text(asObject(w).count)}`)),
    );
  }
  const found = h.occurrence === null || h.occurrence === undefined ? 'none (the bound is ignored)' : time(h.occurrence);
  return node(`${text(h.mode ?? '')} occurrence of ${text(h.action)}: ${found}`.trim());
}

function mechanismTree(mechanism: Json): Tree {
  const children: Tree[] = [node(`branch taken: ${branchText(mechanism.branch, mechanism.outcome)}`)];
  const conditions = asArray(mechanism.conditions);
  if (conditions.length > 0) children.push(node('conditions', conditions.map((c) => conditionTree(c, mechanism.values))));
  const parameterValues = valueTrees(valuesOf(mechanism.values, null));
  if (parameterValues.length > 0) children.push(node('values in modify and execute parameters', parameterValues));
  if (typeof mechanism.reason === 'string') children.push(node(`reason: ${mechanism.reason}`));
  const modifiers = asArray(mechanism.modifiers);
  if (modifiers.length > 0) children.push(node('modifiers', modifiers.map((m) => node(modifierText(m)))));
  if (typeof mechanism.delayMs === 'number' && mechanism.delayMs > 0) children.push(node(`delay: ${mechanism.delayMs} ms`));
  const pip = asArray(mechanism.pip);
  if (pip.length > 0) children.push(node('PIP answers', pip.map((a) => node(pipText(a)))));
  const history = asArray(mechanism.history);
  if (history.length > 0) children.push(node('event history', history.map(historyText)));
  const valueChanged = asArray(mechanism.valueChanged);
  if (valueChanged.length > 0) {
    children.push(
      node('valueChanged', valueChanged.map((v) => node(`${text(asObject(v).id)}: ${asObject(v).changed === true ? 'changed' : 'unchanged'}`))),
    );
  }
  const conditionExecutions = asArray(mechanism.conditionExecutions);
  if (conditionExecutions.length > 0) {
    children.push(
      node(
        'executes in conditions (not called while explaining)',
        conditionExecutions.map((e) => node(`${callText(asObject(e).action, asObject(e).parameters)} = ${text(asObject(e).answer)}`)),
      ),
    );
  }
  const executions = asArray(mechanism.executions);
  if (executions.length > 0) {
    children.push(node('executes (after a real decision)', executions.map((e) => node(callText(asObject(e).action, asObject(e).parameters)))));
  }
  if (typeof mechanism.error === 'string') children.push(node(`error: ${mechanism.error}`));
  const position = typeof mechanism.mechanism === 'number' ? mechanism.mechanism + 1 : '?';
  return node(`mechanism ${position} on ${text(mechanism.event)}: ${text(mechanism.outcome)}`, children);
}

function render(tree: Tree, prefix: string, last: boolean, lines: string[]): void {
  lines.push(`${prefix}${last ? '└─ ' : '├─ '}${tree.text}`);
  const inner = `${prefix}${last ? '   ' : '│  '}`;
  tree.children.forEach((child, index) => render(child, inner, index === tree.children.length - 1, lines));
}

/** `defaultDecision` (present when no mechanism decided): which default it was and whose. */
function defaultText(value: unknown): string | undefined {
  const d = asObject(value);
  if (typeof d.decision !== 'string') return undefined;
  const whose = d.source === 'solution' ? "the solution's setting" : d.source === 'pdp' ? "the pdp's DEFAULT_DECISION" : text(d.source);
  return `no mechanism decided: the default decided, ${d.decision} (${whose})`;
}

export function explainTree(answer: unknown): string[] {
  const a = asObject(answer);
  const lines = [
    `decision: ${a.eventAllowed === true ? 'allowed' : 'inhibited'}  ${text(asObject(a.id).identifier)}` +
      (typeof a.policyRevision === 'number' ? `  (policy revision ${a.policyRevision})` : ''),
  ];
  const modifiers = asArray(a.modifiers);
  lines.push(`delay: ${typeof a.delay === 'number' ? a.delay : 0} ms, modifiers: ${modifiers.length === 0 ? 'none' : modifiers.length}`);
  for (const modifier of modifiers) lines.push(`  ${modifierText(modifier)}`);
  const byDefault = defaultText(a.defaultDecision);
  if (byDefault !== undefined) lines.push(byDefault);

  const byPolicy = new Map<string, Json[]>();
  for (const entry of asArray(a.explanation)) {
    const mechanism = asObject(entry);
    const policyId = text(mechanism.policyId);
    byPolicy.set(policyId, [...(byPolicy.get(policyId) ?? []), mechanism]);
  }
  if (byPolicy.size === 0) {
    lines.push('no deployed policy has a mechanism for this event; the default decision applied');
    return lines;
  }
  lines.push('policies');
  const policies = [...byPolicy.entries()].map(([policyId, mechanisms]) => node(policyId, mechanisms.map(mechanismTree)));
  policies.forEach((policy, index) => render(policy, '', index === policies.length - 1, lines));
  return lines;
}
