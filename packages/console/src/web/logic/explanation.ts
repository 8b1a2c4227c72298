import type { ExplainedDecision } from './api';

/** A node of the readable tree the playground shows: a label, an optional value, children. */
export interface TreeNode {
  label: string;
  value?: string;
  tone?: 'allow' | 'inhibit' | 'error' | 'neutral';
  children: TreeNode[];
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value) ?? 'undefined');
const leaf = (label: string, value: unknown, tone?: TreeNode['tone']): TreeNode => ({ label, value: text(value), ...(tone ? { tone } : {}), children: [] });

/** Where an operand came from, for people: the engine's words without their code quotes (`event user at $.id`). */
const sourceText = (source: unknown): string => text(source).replace(/`/g, '');

/** An operand as a leaf: where it came from, and its value (JSON, so strings show their quotes and spaces). */
function operandNode(operand: Record<string, unknown>): TreeNode {
  if (typeof operand.error === 'string') return leaf(sourceText(operand.source), `failed: ${operand.error}`, 'error');
  return leaf(sourceText(operand.source), `${JSON.stringify(operand.value) ?? 'undefined'}${operand.truncated === true ? ' (cut short)' : ''}`);
}

interface Recorded {
  element: string;
  node: TreeNode;
  operands: Array<Record<string, unknown>>;
  nested: Recorded[];
}

/**
 * A recorded element with its operands under it, one per line, in order: `equals false` over `event user at
 * $.name.firstName "Ann"` and `constant "Mallory"`. An operand that is itself recorded (a `plus` inside a `greater`)
 * is shown as that element, with its own operands under it.
 */
function finish(recorded: Recorded): TreeNode {
  const unused = [...recorded.nested];
  const children = recorded.operands.map((operand) => {
    const index = unused.findIndex((n) => n.element === text(operand.source));
    if (index < 0) return operandNode(operand);
    const [inner] = unused.splice(index, 1);
    return inner === undefined ? operandNode(operand) : finish(inner);
  });
  return { ...recorded.node, children: [...children, ...unused.map(finish)] };
}

/** The values a condition compared: each comparison, function or arithmetic element with its operands and result, inner ones under outer ones. */
function valueNodes(values: unknown, condition: number): TreeNode[] {
  const records = Array.isArray(values) ? values.filter(isRecord).filter((v) => v.condition === condition) : [];
  const roots: Recorded[] = [];
  const open: Recorded[] = [];
  for (const v of records) {
    const recorded: Recorded = {
      element: text(v.element),
      node: {
        label: text(v.element),
        value: typeof v.error === 'string' ? `failed: ${v.error}` : (JSON.stringify(v.value) ?? 'undefined'),
        ...(typeof v.error === 'string' ? { tone: 'error' as const } : {}),
        children: [],
      },
      operands: Array.isArray(v.operands) ? v.operands.filter(isRecord) : [],
      nested: [],
    };
    const depth = Math.min(Number(v.depth) || 0, open.length);
    const parent = depth === 0 ? undefined : open[depth - 1];
    if (parent === undefined) roots.push(recorded);
    else parent.nested.push(recorded);
    open.length = depth;
    open.push(recorded);
  }
  return roots.map(finish);
}

function branchText(branch: unknown, outcome?: unknown): string {
  if (!isRecord(branch)) return 'none';
  if (branch.kind === 'none' && outcome === 'error') return 'none (a condition failed)';
  if (branch.kind === 'if' || branch.kind === 'elseif') return `${branch.kind} #${Number(branch.index) + 1}`;
  return String(branch.kind);
}

function modifierNode(modifier: unknown): TreeNode {
  const m = isRecord(modifier) ? modifier : {};
  const engine = Array.isArray(m.engine) && isRecord(m.engine[0]) ? m.engine[0] : {};
  const parameters = Array.isArray(engine.parameters) ? engine.parameters : [];
  return {
    label: `modify ${text(m.name)} at ${text(m.expression)}`,
    value: typeof engine.method === 'string' ? engine.method : '',
    // Values as JSON, so a string's leading or trailing space stays visible.
    children: parameters.filter(isRecord).map((p) => leaf(text(p.name), JSON.stringify(isRecord(p.value) ? p.value.value : p.value))),
  };
}

function spanText(span: unknown): string {
  if (!isRecord(span)) return '';
  const from = span.from === null ? 'the beginning' : new Date(Number(span.from)).toISOString();
  return `${from} to ${new Date(Number(span.to)).toISOString()}`;
}

function mechanismNode(raw: unknown): TreeNode {
  const m = isRecord(raw) ? raw : {};
  const outcome = String(m.outcome);
  const tone = outcome === 'allow' ? 'allow' : outcome === 'inhibit' ? 'inhibit' : outcome === 'error' ? 'error' : 'neutral';
  const children: TreeNode[] = [leaf('branch taken', branchText(m.branch, m.outcome))];
  const conditions = Array.isArray(m.conditions) ? m.conditions.filter(isRecord) : [];
  if (conditions.length > 0) {
    children.push({
      label: 'conditions',
      children: conditions.map((c) => ({
        ...leaf(`condition #${Number(c.branch) + 1}`, c.value === null ? 'error' : c.value),
        children: valueNodes(m.values, Number(c.branch)),
      })),
    });
  }
  if (Number(m.delayMs) > 0) children.push(leaf('delay', `${Number(m.delayMs)} ms`));
  const modifiers = Array.isArray(m.modifiers) ? m.modifiers : [];
  if (modifiers.length > 0) children.push({ label: 'modifiers', children: modifiers.map(modifierNode) });
  const pip = Array.isArray(m.pip) ? m.pip.filter(isRecord) : [];
  if (pip.length > 0) {
    children.push({
      label: 'PIP answers',
      children: pip.map((answer) => ({
        label: text(answer.method),
        value: text(isRecord(answer.value) ? answer.value.value : answer.value),
        children: answer.usedDefault === true ? [leaf('default used', answer.reason ?? 'yes')] : [],
      })),
    });
  }
  const history = Array.isArray(m.history) ? m.history.filter(isRecord) : [];
  if (history.length > 0) {
    children.push({
      label: 'history',
      children: history.map((h) => ({
        label: `${text(h.element)} of ${text(h.action)}`,
        ...(h.count !== undefined ? { value: `${Number(h.count)} found` } : h.occurrence !== undefined ? { value: h.occurrence === null ? 'none' : new Date(Number(h.occurrence)).toISOString() } : {}),
        children: [
          ...(h.span !== undefined ? [leaf('span', spanText(h.span))] : []),
          ...(Array.isArray(h.windows) ? h.windows.filter(isRecord).map((w) => leaf(spanText(w), `${Number(w.count)} found`)) : []),
        ],
      })),
    });
  }
  const executions = Array.isArray(m.executions) ? m.executions.filter(isRecord) : [];
  if (executions.length > 0) children.push({ label: 'executes (not run while explaining)', children: executions.map((e) => leaf('execute', e.action)) });
  if (typeof m.reason === 'string') children.push(leaf('reason', m.reason));
  if (typeof m.error === 'string') children.push(leaf('error', m.error, 'error'));
  return { label: `${text(m.policyId)} · mechanism #${Number(m.mechanism) + 1} (${text(m.event)})`, value: outcome, tone, children };
}

/** The explained decision as a tree: the decision first, then every mechanism that matched the event. */
export function explanationTree(decision: ExplainedDecision): TreeNode {
  const mechanisms = Array.isArray(decision.explanation) ? decision.explanation : [];
  return {
    label: 'decision',
    value: decision.eventAllowed ? 'allowed' : 'inhibited',
    tone: decision.eventAllowed ? 'allow' : 'inhibit',
    children: [
      leaf('delay', `${decision.delay} ms`),
      ...(decision.policyRevision !== undefined ? [leaf('policy revision', decision.policyRevision)] : []),
      { label: 'modifiers', value: String(decision.modifiers.length), children: decision.modifiers.map(modifierNode) },
      { label: 'mechanisms', value: mechanisms.length === 0 ? 'none matched: the default decided' : String(mechanisms.length), children: mechanisms.map(mechanismNode) },
    ],
  };
}
