import type { PolicyIdentity } from '../../api';
import type { JsonValue } from '../value-types';
import type { BooleanExpression, ValidExpression } from './expressions';
import type { Located, PerType, ValidJsonPath } from './located';

/**
 * A policy that passed every validation pass, in the form compile takes: structure resolved into fields, attribute
 * values read into typed values, every node with its source location. Only validation builds one.
 */
export interface ValidPolicy extends Located, PolicyIdentity {
  /** In document order, referenced or not. */
  readonly declarations: readonly ValidDeclaration[];
  readonly mechanisms: readonly ValidMechanism[];
}

export type ValidDeclaration = PerType<Located & { readonly name: string; readonly value: ValidExpression }>;

export interface ValidMechanism extends Located {
  readonly event: string;
  /** The `if`, then the `elseif`s, in document order. */
  readonly branches: readonly [ValidBranch<'if'>, ...Array<ValidBranch<'elseif'>>];
  readonly otherwise: ValidDecision | null;
  /** `execute` directly under the mechanism. */
  readonly executions: readonly ValidExecute[];
}

export interface ValidBranch<Kind extends 'if' | 'elseif' = 'if' | 'elseif'> extends Located {
  readonly kind: Kind;
  readonly condition: BooleanExpression;
  readonly then: ValidDecision;
}

/** A `then` or `else`: at most one of allow and inhibit (and neither beside `modify`), a delay, executes. */
export interface ValidDecision extends Located {
  readonly verdict: { readonly kind: 'allow' | 'inhibit'; readonly reason: string | null } | null;
  readonly modifiers: readonly ValidModify[];
  readonly delayMs: number | null;
  readonly executions: readonly ValidExecute[];
}

export interface ValidModify extends Located {
  readonly eventParameter: string;
  readonly method: string;
  readonly path: ValidJsonPath | null;
  readonly reason: string | null;
  readonly parameters: readonly ValidParameter[];
}

export interface ValidExecute extends Located {
  readonly action: string;
  readonly parameters: readonly ValidParameter[];
}

/** Where a `parameter:T` takes its value from: the `value` literal, which wins, its child, or nothing (null). */
export type ParameterSource =
  | { readonly kind: 'literal'; readonly value: JsonValue }
  | { readonly kind: 'expression'; readonly expression: ValidExpression }
  | { readonly kind: 'none' };

export type ValidParameter = PerType<Located & { readonly name: string; readonly source: ParameterSource }>;
