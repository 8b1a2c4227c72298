import type { RE2JS } from 're2js';
import type { Comparison } from '../../parse/calendar';
import type { MatchMode } from '../../functions/matching';
import type { JsonValue, ValueType } from '../value-types';
import type { ValidHistory } from './history';
import type { Located, PerType, ValidJsonPath } from './located';
import type { ValidDeclaration, ValidExecute, ValidParameter } from './policy';

/**
 * Every expression of a validated policy (policy-language.md §4–§6), one `kind` per element family, with its result
 * `type` and its attributes already read: what compile sees instead of element names and attribute strings.
 */
export type ValidExpression =
  | LogicalNode
  | XorNode
  | NotNode
  | ImpliesNode
  | EqualsNode
  | ComparisonNode
  | ArithmeticNode
  | SizeNode
  | ConcatNode
  | RegexNode
  | ContainsNode
  | EventHasParameterNode
  | DateNode
  | TimeNode
  | DayNode
  | CountNode
  | ContinuousOccurrenceNode
  | ConditionExecuteNode
  | ConstantNode
  | EventValueNode
  | PipNode
  | VariableNode
  | ValueChangedNode;

/** The expressions whose value is of one of the types `T`. */
export type ExpressionOf<T extends ValueType> = Extract<ValidExpression, { readonly type: T }>;
export type BooleanExpression = ExpressionOf<'boolean'>;

export interface LogicalNode extends Located {
  readonly kind: 'and' | 'or';
  readonly type: 'boolean';
  /** `mode="EAGER"`: every operand is evaluated even once the answer is known. */
  readonly eager: boolean;
  readonly operands: readonly BooleanExpression[];
}

export interface XorNode extends Located {
  readonly kind: 'xor';
  readonly type: 'boolean';
  readonly operands: readonly BooleanExpression[];
}

export interface NotNode extends Located {
  readonly kind: 'not';
  readonly type: 'boolean';
  readonly operand: BooleanExpression;
}

export interface ImpliesNode extends Located {
  readonly kind: 'implies';
  readonly type: 'boolean';
  readonly premise: BooleanExpression;
  readonly conclusion: BooleanExpression;
}

export interface EqualsNode extends Located {
  readonly kind: 'equals';
  readonly type: 'boolean';
  /** At least two (the content model's minimum), so there is always a first to compare with. */
  readonly operands: readonly [ValidExpression, ValidExpression, ...ValidExpression[]];
}

/** The comparison elements, which are also the operators of the validated tree. */
export const COMPARISON_OPERATORS = ['less', 'lessEqual', 'greater', 'greaterEqual'] as const;
export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];

/** An operator over numbers: the comparisons answer a boolean, the arithmetic a number. */
interface NumberOperatorNode<K extends string, T extends 'boolean' | 'number', O extends string> extends Located {
  readonly kind: K;
  readonly type: T;
  readonly operator: O;
  readonly operands: readonly ExpressionOf<'number'>[];
}

export type ComparisonNode = NumberOperatorNode<'comparison', 'boolean', ComparisonOperator>;

/** The arithmetic elements, which are also the operators of the validated tree. */
export const ARITHMETIC_OPERATORS = ['plus', 'minus', 'multiply', 'divide'] as const;
export type ArithmeticOperator = (typeof ARITHMETIC_OPERATORS)[number];

export type ArithmeticNode = NumberOperatorNode<'arithmetic', 'number', ArithmeticOperator>;

export interface SizeNode extends Located {
  readonly kind: 'size';
  readonly type: 'number';
  readonly operand: ExpressionOf<'list' | 'string'>;
}

export interface ConcatNode extends Located {
  readonly kind: 'concat';
  readonly type: 'string';
  readonly operands: readonly ValidExpression[];
}

export interface RegexNode extends Located {
  readonly kind: 'regex';
  readonly type: 'boolean';
  readonly regex: RE2JS;
  readonly mode: MatchMode;
  readonly operands: readonly ExpressionOf<'string'>[];
}

export interface ContainsNode extends Located {
  readonly kind: 'contains';
  readonly type: 'boolean';
  readonly mode: MatchMode;
  readonly list: ExpressionOf<'list'>;
  readonly items: readonly ValidExpression[];
}

export interface EventHasParameterNode extends Located {
  readonly kind: 'eventHasParameter';
  readonly type: 'boolean';
  readonly mode: MatchMode;
  readonly operands: readonly ExpressionOf<'string'>[];
}

export interface DateNode extends Located {
  readonly kind: 'date';
  readonly type: 'boolean';
  readonly comparison: Comparison;
  readonly dayOfYear: number;
}

export interface TimeNode extends Located {
  readonly kind: 'time';
  readonly type: 'boolean';
  readonly comparison: Comparison;
  readonly minuteOfDay: number;
}

export interface DayNode extends Located {
  readonly kind: 'day';
  readonly type: 'boolean';
  /** 0 = Sunday … 6 = Saturday. */
  readonly weekdays: ReadonlySet<number>;
}

export interface CountNode extends Located {
  readonly kind: 'count';
  readonly type: 'number';
  readonly history: ValidHistory;
}

export interface ContinuousOccurrenceNode extends Located {
  readonly kind: 'continuousOccurrence';
  readonly type: 'boolean';
  readonly history: ValidHistory;
  readonly intervalMs: number;
  readonly minOccurrences: number;
  readonly maxOccurrences: number;
}

/** `execute` inside a condition: a synchronous PXP call whose answer is the value. */
export interface ConditionExecuteNode extends Located {
  readonly kind: 'execute';
  readonly type: 'boolean';
  readonly execute: ValidExecute;
}

/** `constant:T`, and `constant:true`/`constant:false` as boolean constants. */
export type ConstantNode = PerType<Located & { readonly kind: 'constant'; readonly value: JsonValue }>;

export type EventValueNode = PerType<
  Located & {
    readonly kind: 'event';
    readonly parameter: string;
    readonly defaultValue: JsonValue;
    readonly path: ValidJsonPath | null;
  }
>;

export type PipNode = PerType<
  Located & {
    readonly kind: 'pip';
    readonly method: string;
    readonly defaultValue: JsonValue;
    readonly ttlMs: number | null;
    readonly parameters: readonly ValidParameter[];
  }
>;

/** `variable:T`, linked to its declaration, of the same type. */
export type VariableNode = PerType<Located & { readonly kind: 'variable'; readonly declaration: ValidDeclaration }>;

export interface ValueChangedNode extends Located {
  readonly kind: 'valueChanged';
  readonly type: 'boolean';
  /** The T of `valueChanged:T`: the type of the watched value and of `to`. */
  readonly valueType: ValueType;
  readonly id: string;
  readonly to: JsonValue | null;
  readonly operand: ValidExpression;
}
