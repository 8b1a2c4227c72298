import type { ExplainedSpan, MechanismExplanation } from '@custos/policy-engine';
import { show } from './compare';
import { depthOf, valueText, valuesOf } from '../../output/value-lines';
import { recordOf } from './stubs';

/** The explanation of a test's event as indented text lines, for `--verbose`. */
export function formatExplanation(explanation: readonly MechanismExplanation[]): string[] {
  if (explanation.length === 0) return ['no mechanism matches the event: the default decision applies'];
  const lines: string[] = [];
  for (const m of explanation) {
    const branch = m.branch.kind === 'none' && m.outcome === 'error' ? 'took no branch (a condition failed)' : branchText(m.branch);
    lines.push(`\`${m.policyId}\` mechanism ${m.mechanism + 1} (\`${m.event}\`): ${branch}, outcome ${m.outcome}${m.reason === null ? '' : ` (${m.reason})`}`);
    if (m.conditions.length > 0) {
      lines.push(`  conditions: ${m.conditions.map((c) => `${conditionName(c.branch)} ${c.value === null ? 'failed' : String(c.value)}`).join(', ')}`);
    }
    for (const c of m.conditions) {
      for (const record of valuesOf(m.values, c.branch)) lines.push(`    ${conditionName(c.branch)}: ${'  '.repeat(depthOf(record))}${valueText(record)}`);
    }
    for (const record of valuesOf(m.values, null)) lines.push(`    parameters: ${'  '.repeat(depthOf(record))}${valueText(record)}`);
    if (m.delayMs > 0) lines.push(`  delay: ${m.delayMs} ms`);
    for (const modifier of m.modifiers) {
      lines.push(`  modify \`${modifier.eventParameter}\` at \`${modifier.expression}\`: ${modifier.method} ${show(recordOf(modifier.parameters))}`);
    }
    for (const execution of m.executions) lines.push(`  execute \`${execution.action}\` ${show(recordOf(execution.parameters))}`);
    for (const pip of m.pip ?? []) {
      lines.push(
        `  pip \`${pip.method}\` ${show(recordOf(pip.parameters))} → ${show(pip.value)}${pip.usedDefault ? ` (default${pip.reason === undefined ? '' : `: ${pip.reason}`})` : ''}`,
      );
    }
    for (const item of m.history ?? []) {
      if (item.element === 'count') lines.push(`  count \`${item.action}\` in ${span(item.span)}: ${item.count ?? '?'}`);
      else if (item.element === 'continuousOccurrence') {
        lines.push(`  continuousOccurrence \`${item.action}\`: ${(item.windows ?? []).map((w) => `${span(w)} ${w.count}`).join(', ')}`);
      } else {
        lines.push(`  ${item.mode ?? ''} occurrence of \`${item.action}\`: ${item.occurrence === null || item.occurrence === undefined ? 'none' : new Date(item.occurrence).toISOString()}`);
      }
    }
    for (const change of m.valueChanged ?? []) lines.push(`  valueChanged \`${change.id}\`: ${change.changed ? 'changed' : 'unchanged'}`);
    for (const call of m.conditionExecutions ?? []) {
      lines.push(`  execute \`${call.action}\` in a condition: not run while explaining, taken as false`);
    }
    if (m.error !== null) lines.push(`  error: ${m.error}`);
  }
  return lines;
}

function branchText(branch: MechanismExplanation['branch']): string {
  switch (branch.kind) {
    case 'if':
      return 'took `if`';
    case 'elseif':
      return `took \`elseif ${branch.index + 1}\``;
    case 'else':
      return 'took `else`';
    default:
      return 'took no branch';
  }
}

/** Conditions are numbered by position: 0 is the `if`, then the `elseif`s. */
const conditionName = (position: number) => (position === 0 ? 'if' : `elseif ${position}`);

function span(value: ExplainedSpan | undefined): string {
  if (value === undefined) return 'all time';
  const from = value.from === null ? 'the beginning' : new Date(value.from).toISOString();
  return `[${from}, ${new Date(value.to).toISOString()})`;
}
