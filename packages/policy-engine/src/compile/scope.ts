import type { HistoryFilterSpec } from '../api';
import type { ValidExpression } from '../ast/valid/expressions';
import type { ValidDeclaration } from '../ast/valid/policy';
import type { CompiledExpression } from '../functions/evaluation';
import { newVariableSlot } from '../functions/variables';
import type { ExplainState } from './explain-values';

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
 * for `CompiledPolicy`. A validated declaration cannot depend on itself: its tree is built bottom-up.
 */
export class CompileScope {
  readonly usage: HistoryUsage = { actions: [], filters: [], usesHistory: false, reachMs: 0 };
  private readonly compiled = new Map<ValidDeclaration, CompiledDeclaration>();

  constructor(
    readonly policyId: string,
    readonly solution: string,
    private readonly compileChild: (expression: ValidExpression, scope: CompileScope) => CompiledExpression,
    /** Set when compiling the explaining program of a policy, which records operand values. */
    readonly explain: ExplainState | null = null,
  ) {}

  variable(declaration: ValidDeclaration): CompiledDeclaration {
    const known = this.compiled.get(declaration);
    if (known !== undefined) return known;
    // A declaration is compiled where it is first referenced, but its value is an operand of nothing there.
    const explain = this.explain;
    const outer = explain === null ? null : { parent: explain.parent, depth: explain.depth };
    if (explain !== null) {
      explain.parent = null;
      explain.depth = 0;
    }
    const expression = this.compileChild(declaration.value, this);
    if (explain !== null && outer !== null) {
      explain.parent = outer.parent;
      explain.depth = outer.depth;
    }
    const compiled = { slot: newVariableSlot(), expression };
    this.compiled.set(declaration, compiled);
    return compiled;
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
