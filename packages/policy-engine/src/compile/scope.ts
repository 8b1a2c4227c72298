import type { HistoryFilterSpec } from '../api';
import type { ElementNode } from '../ast/nodes';
import type { CompiledExpression } from '../functions/evaluation';
import { newVariableSlot } from '../functions/variables';

export interface CompiledDeclaration {
  readonly slot: number;
  readonly expression: CompiledExpression;
}

/** What the policy's history elements need from the pdp, gathered while compiling. */
export interface HistoryUsage {
  readonly actions: string[];
  readonly filters: HistoryFilterSpec[];
  usesHistory: boolean;
  reachMs: number;
}

/**
 * Everything a compiler needs beyond the element in hand: the policy's identity (pip, execute and valueChanged
 * capture it), its variable declarations, compiled on first reference and once, and the history usage collected
 * for `CompiledPolicy`.
 */
export class CompileScope {
  readonly usage: HistoryUsage = { actions: [], filters: [], usesHistory: false, reachMs: 0 };
  private readonly compiled = new Map<string, CompiledDeclaration>();
  private readonly inProgress = new Set<string>();

  constructor(
    readonly policyId: string,
    readonly solution: string,
    private readonly declarations: ReadonlyMap<string, ElementNode>,
    private readonly compileChild: (node: ElementNode, scope: CompileScope) => CompiledExpression,
  ) {}

  variable(name: string): CompiledDeclaration {
    const known = this.compiled.get(name);
    if (known !== undefined) return known;
    const node = this.declarations.get(name);
    const child = node?.children[0];
    if (child === undefined) throw new Error(`bug: validated reference to unknown variable \`${name}\``);
    if (this.inProgress.has(name)) throw new Error(`bug: validated variable \`${name}\` refers to itself`);
    this.inProgress.add(name);
    const declaration = { slot: newVariableSlot(), expression: this.compileChild(child, this) };
    this.inProgress.delete(name);
    this.compiled.set(name, declaration);
    return declaration;
  }

  recordHistoryAction(action: string, reachMs: number): void {
    this.usage.usesHistory = true;
    if (!this.usage.actions.includes(action)) this.usage.actions.push(action);
    this.usage.reachMs = Math.max(this.usage.reachMs, reachMs);
  }

  recordFilter(filter: HistoryFilterSpec): void {
    const known = this.usage.filters.some(
      (item) => item.action === filter.action && item.name === filter.name && item.path === filter.path,
    );
    if (!known) this.usage.filters.push(filter);
  }
}
