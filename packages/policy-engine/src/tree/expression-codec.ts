import { ARITHMETIC_OPERATORS, COMPARISON_OPERATORS, type ExpressionOf, type ValidExpression } from '../ast/valid/expressions';
import type { ValidHistory } from '../ast/valid/history';
import type { Located } from '../ast/valid/located';
import type { ValidDeclaration, ValidExecute, ValidParameter } from '../ast/valid/policy';
import { VALUE_TYPES, type ValueType } from '../ast/value-types';
import { MATCH_MODES } from '../functions/matching';
import { COMPARISONS } from '../parse/calendar';
import { FIXED_TIMES, MAX_TIME_OFFSET, TIME_FIELD_RANGES, type TimeExpression } from '../parse/time-expression';
import {
  atLeastTwo,
  boolean,
  choice,
  convert,
  fields,
  integer,
  list,
  located,
  nullable,
  object,
  oneOf,
  refine,
  renamed,
  sequence,
  string,
  variants,
  type Codec,
  type FieldsCodec,
  type Flat,
} from './codec';
import { TreeDamage } from './tree-damage';
import { MAX_DEPTH } from './tree-scope';
import { JSON_PATH, literal, REGEX } from './tree-values';

/**
 * The JSON form of expressions and what they hold (parameters, executes, history), described once: what JSON cannot
 * carry is kept as text or ids — regexes and JSONPath queries as their source, weekday sets as sorted lists, a
 * variable's declaration as its name, an unbounded `maxOccurrences` as null.
 */

/** An expression whose result is of one of `types`. */
export function typed<T extends ValueType>(types: readonly T[]): Codec<ExpressionOf<T>> {
  const allowed: ReadonlySet<ValueType> = new Set(types);
  const fits = (expression: ValidExpression): expression is ExpressionOf<T> => allowed.has(expression.type);
  return {
    read: (value, scope) => {
      const expression = EXPRESSION.read(value, scope);
      if (!fits(expression)) throw new TreeDamage(`is of type ${expression.type}, not ${types.join(' or ')}`);
      return expression;
    },
    write: (expression) => EXPRESSION.write(expression),
  };
}

const BOOLEAN = typed(['boolean']);
const NUMBER = typed(['number']);
const STRING = typed(['string']);
const ANY: Codec<ValidExpression> = { read: (value, scope) => EXPRESSION.read(value, scope), write: (expression) => EXPRESSION.write(expression) };

/** The fields of one value type's variant (`PerType` in the tree's types), after its `type`. */
const perType = <T>(build: (type: ValueType) => FieldsCodec<T>) => located(choice('type', VALUE_TYPES, build));

export const PARAMETER: Codec<ValidParameter> = object(
  located(
    sequence(
      fields({ name: string }),
      choice('type', VALUE_TYPES, (type) =>
        fields({
          source: object(variants({ literal: fields({ value: literal(type) }), expression: fields({ expression: typed([type]) }), none: fields({}) })),
        }),
      ),
    ),
  ),
);
const PARAMETERS = list(PARAMETER);

export const EXECUTE: Codec<ValidExecute> = object(located(fields({ action: string, parameters: PARAMETERS })));

/** A `variable:T`'s declaration, by name. */
const declarationOf = (type: ValueType): Codec<ValidDeclaration> => ({
  read: (value, scope) => scope.declaration(string.read(value, scope), type),
  write: (declaration) => declaration.name,
});

const OCCURRENCE = object(located(fields({ action: string, filters: list(object(fields({ parameter: PARAMETER, path: nullable(JSON_PATH) }))) })));

const timeField = (name: keyof TimeExpression) => {
  const [low, high] = TIME_FIELD_RANGES[name];
  return object(
    variants({ absolute: fields({ value: integer(low, high) }), current: fields({}), relative: fields({ offset: integer(-MAX_TIME_OFFSET, MAX_TIME_OFFSET) }) }),
  );
};
const TIME: Codec<TimeExpression> = object(
  fields({ day: timeField('day'), month: timeField('month'), year: timeField('year'), hour: timeField('hour'), minute: timeField('minute'), second: timeField('second') }),
);

const BOUND = refine(
  object(located(fields({ time: nullable(TIME), occurrence: nullable(object(fields({ occurrence: OCCURRENCE, which: oneOf(['first', 'last']) }))) }))),
  (bound) => (bound.time === null && bound.occurrence === null ? { at: null, problem: 'has neither a time nor an occurrence' } : null),
);

const HISTORY: Codec<ValidHistory> = object(
  fields({
    occurrence: OCCURRENCE,
    when: object(located(variants({ fixed: fields({ fixedTime: oneOf(FIXED_TIMES) }), bounds: fields({ start: nullable(BOUND), end: nullable(BOUND) }) }))),
  }),
);

/** 0 = Sunday … 6 = Saturday, kept as a sorted list. */
const WEEKDAYS: Codec<ReadonlySet<number>> = convert(
  list(integer(0, 6), 1),
  (days): ReadonlySet<number> => new Set(days),
  (days) => [...days].sort((a, b) => a - b),
);

/** No upper bound is Infinity in memory and null in JSON. */
const UNBOUNDED: Codec<number> = convert(
  nullable(integer(0)),
  (count) => count ?? Infinity,
  (count) => (Number.isFinite(count) ? count : null),
);

/** A kind whose result is always of `type`. */
function node<T extends ValueType, S>(type: T, codec: FieldsCodec<S>): FieldsCodec<Flat<{ readonly type: T } & S & Located>> {
  const rest = located(codec);
  return {
    read: (source, scope, into) => {
      if (source.type !== type) throw new TreeDamage(`a \`${String(source.kind)}\` is of type ${type}`).within('type');
      into.type = type;
      rest.read(source, scope, into);
    },
    write: (value, into) => {
      into.type = type;
      rest.write(value, into);
    },
  };
}

const logical = node('boolean', fields({ eager: boolean, operands: list(BOOLEAN, 1) }));

const NODE = object(
  variants(
    {
      and: logical,
      or: logical,
      xor: node('boolean', fields({ operands: list(BOOLEAN, 1) })),
      not: node('boolean', fields({ operand: BOOLEAN })),
      implies: node('boolean', fields({ premise: BOOLEAN, conclusion: BOOLEAN })),
      equals: node('boolean', fields({ operands: atLeastTwo(ANY) })),
      comparison: node('boolean', fields({ operator: oneOf(COMPARISON_OPERATORS), operands: list(NUMBER, 2) })),
      arithmetic: node('number', fields({ operator: oneOf(ARITHMETIC_OPERATORS), operands: list(NUMBER, 2) })),
      size: node('number', fields({ operand: typed(['list', 'string']) })),
      concat: node('string', fields({ operands: list(ANY, 1) })),
      regex: node('boolean', fields({ regex: REGEX, mode: oneOf(MATCH_MODES), operands: list(STRING, 1) })),
      contains: node('boolean', fields({ mode: oneOf(MATCH_MODES), list: typed(['list']), items: list(ANY, 1) })),
      eventHasParameter: node('boolean', fields({ mode: oneOf(MATCH_MODES), operands: list(STRING, 1) })),
      date: node('boolean', fields({ comparison: oneOf(COMPARISONS), dayOfYear: integer(10_101, 99_991_231) })),
      time: node('boolean', fields({ comparison: oneOf(COMPARISONS), minuteOfDay: integer(0, 24 * 60 - 1) })),
      day: node('boolean', fields({ weekdays: WEEKDAYS })),
      count: node('number', fields({ history: HISTORY })),
      continuousOccurrence: node('boolean', fields({ history: HISTORY, intervalMs: integer(1), minOccurrences: integer(0), maxOccurrences: UNBOUNDED })),
      execute: node('boolean', fields({ execute: EXECUTE })),
      constant: perType((type) => fields({ value: literal(type) })),
      event: perType((type) => fields({ parameter: string, defaultValue: literal(type), path: nullable(JSON_PATH) })),
      pip: perType((type) => fields({ method: string, defaultValue: literal(type), ttlMs: nullable(integer(0)), parameters: PARAMETERS })),
      variable: perType((type) => fields({ declaration: renamed('reference', declarationOf(type)) })),
      valueChanged: node(
        'boolean',
        choice('valueType', VALUE_TYPES, (type) => fields({ id: string, to: nullable(literal(type)), operand: typed([type]) })),
      ),
    },
    (kind) => `\`${kind}\` is not a kind of expression`,
  ),
);

/** Any expression, nested at most MAX_DEPTH deep (so a hostile tree cannot exhaust the stack). */
export const EXPRESSION: Codec<ValidExpression> = {
  read: (value, scope) => {
    if (scope.depth >= MAX_DEPTH) throw new TreeDamage(`nests deeper than ${MAX_DEPTH}`);
    scope.depth += 1;
    try {
      return NODE.read(value, scope);
    } finally {
      scope.depth -= 1;
    }
  },
  write: (expression) => NODE.write(expression),
};
