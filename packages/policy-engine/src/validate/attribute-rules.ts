import type { ElementNode } from '../ast/nodes';
import { VALUE_TYPES, type ValueType } from '../ast/value-types';
import { excerpt } from '../diagnostics';
import { DELAY_UNITS, readDelayMilliseconds } from '../parse/delay';
import { readComparison, readDayOfYear, readMinuteOfDay, readWeekdays } from '../parse/calendar';
import { readDuration, readPositiveDuration } from '../parse/duration';
import { readJsonPath } from '../parse/json-path';
import { readLiteral } from '../parse/literals';
import type { ReadResult } from '../parse/read-result';
import { readRegex } from '../parse/regex';
import { FIXED_TIMES, readTimeExpression } from '../parse/time-expression';
import { MATCH_MODES } from '../functions/matching';

/** Checks one attribute value; returns what is wrong with it, or null. */
export type AttributeCheck = (value: string, element: ElementNode) => string | null;

export interface AttributeRule {
  readonly required: boolean;
  readonly check?: AttributeCheck;
}

type RuleTable = Readonly<Record<string, AttributeRule>>;

/** A map, not a plain object: an attribute called `constructor` must not find a rule on the prototype. */
export type ElementAttributeRules = ReadonlyMap<string, AttributeRule>;

const optional = (check?: AttributeCheck): AttributeRule => (check === undefined ? { required: false } : { required: false, check });
const required = (check?: AttributeCheck): AttributeRule => (check === undefined ? { required: true } : { required: true, check });

const notEmpty: AttributeCheck = (value) => (value.trim() === '' ? 'must not be empty' : null);

/** A check from a reader of user text: the problem it reports, if any. */
const reads =
  (reader: (text: string) => ReadResult<unknown>): AttributeCheck =>
  (value) => {
    const read = reader(value);
    return read.ok ? null : read.problem;
  };

const jsonPath = reads(readJsonPath);

const count: AttributeCheck = (value) =>
  /^\d{1,9}$/.test(value.trim()) ? null : `\`${excerpt(value)}\` is not a whole number of at least 0`;

const literal =
  (type: ValueType): AttributeCheck =>
  (value) => {
    const read = readLiteral(type, value);
    return read.ok ? null : read.problem;
  };

const oneOf =
  (allowed: readonly string[]): AttributeCheck =>
  (value) =>
    allowed.includes(value) ? null : `\`${excerpt(value)}\` is not one of ${allowed.map((item) => `\`${item}\``).join(', ')}`;

const delayAmount: AttributeCheck = (value, element) => {
  const unit = element.attributes.get('unit')?.value;
  const read = readDelayMilliseconds(value, unit !== undefined && DELAY_UNITS.has(unit) ? unit : 'MILLISECONDS');
  return read.ok ? null : read.problem;
};

/** The attributes of every element (policy-language.md §3–§6). URN forms are checked by their own pass. */
const TABLES: ReadonlyArray<[string, RuleTable]> = [
  ['policy', { id: required(), name: optional(), description: optional() }],
  ['mechanism', { event: required(), id: optional(), description: optional() }],
  ['if', {}],
  ['elseif', {}],
  ['else', {}],
  ['then', {}],
  ['allow', { reason: optional() }],
  ['inhibit', { reason: optional() }],
  [
    'modify',
    {
      eventParameter: required(notEmpty),
      method: required(notEmpty),
      jsonPathQuery: optional(jsonPath),
      reason: optional(),
    },
  ],
  ['delay', { amount: required(delayAmount), unit: required(oneOf([...DELAY_UNITS.keys()])) }],
  ['execute', { action: required() }],
  ['and', { mode: optional(oneOf(['EAGER'])) }],
  ['or', { mode: optional(oneOf(['EAGER'])) }],
  ...['not', 'xor', 'implies', 'equals', 'less', 'lessEqual', 'greater', 'greaterEqual'].map((name): [string, RuleTable] => [name, {}]),
  ...['plus', 'minus', 'multiply', 'divide', 'size', 'concat', 'count'].map((name): [string, RuleTable] => [name, {}]),
  ['regex', { regex: required(reads(readRegex)), mode: optional(oneOf(MATCH_MODES)) }],
  ['contains', { mode: optional(oneOf(MATCH_MODES)) }],
  ['eventHasParameter', { mode: optional(oneOf(MATCH_MODES)) }],
  ['date', { is: required(reads(readComparison)), value: required(reads(readDayOfYear)) }],
  ['time', { is: required(reads(readComparison)), value: required(reads(readMinuteOfDay)) }],
  ['day', { value: required(reads(readWeekdays)) }],
  [
    'continuousOccurrence',
    { interval: required(reads(readPositiveDuration)), minOccurrences: optional(count), maxOccurrences: optional(count) },
  ],
  ['eventOccurrence', { event: required(), mode: optional(oneOf(['FIRST', 'LAST'])) }],
  ['when', { fixedTime: optional(oneOf(FIXED_TIMES)) }],
  ['start', { time: optional(reads(readTimeExpression)) }],
  ['end', { time: optional(reads(readTimeExpression)) }],
  ['constant:true', {}],
  ['constant:false', {}],
  ...VALUE_TYPES.flatMap((type): Array<[string, RuleTable]> => [
    [`constant:${type}`, { value: required(literal(type)) }],
    [
      `event:${type}`,
      { eventParameter: required(notEmpty), default: required(literal(type)), jsonPathQuery: optional(jsonPath) },
    ],
    // Whether a `jsonPathQuery` belongs where it is (only in eventOccurrence) is the history pass's question.
    [`parameter:${type}`, { name: required(notEmpty), value: optional(literal(type)), jsonPathQuery: optional(jsonPath) }],
    [`pip:${type}`, { method: required(), default: required(literal(type)), ttl: optional(reads(readDuration)) }],
    [`variable:${type}`, { reference: required(notEmpty) }],
    [`variableDeclaration:${type}`, { name: required(notEmpty) }],
    [`valueChanged:${type}`, { id: required(notEmpty), to: optional(literal(type)) }],
  ]),
];

const RULES: ReadonlyMap<string, ElementAttributeRules> = new Map(
  TABLES.map(([element, table]) => [element, new Map(Object.entries(table))]),
);

export function attributeRules(element: ElementNode): ElementAttributeRules | undefined {
  return RULES.get(element.name);
}
