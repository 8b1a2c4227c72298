import type { ElementName, Family } from '../ast/catalogue';
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
  /** The only values the check lets through, when it is a closed list (the language description offers them). */
  readonly values?: readonly string[];
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

/** An optional attribute with a closed list of values, which the rule also states as data. */
const optionalOneOf = (allowed: readonly string[]): AttributeRule => ({ required: false, check: oneOf(allowed), values: allowed });

const delayAmount: AttributeCheck = (value, element) => {
  const unit = element.attributes.get('unit')?.value;
  const read = readDelayMilliseconds(value, unit !== undefined && DELAY_UNITS.has(unit) ? unit : 'MILLISECONDS');
  return read.ok ? null : read.problem;
};

const rules = (table: RuleTable): ElementAttributeRules => new Map(Object.entries(table));
const NONE = rules({});

/** The rules of a family's elements, one element per value type. */
function family<F extends Family>(of: F, table: (type: ValueType) => RuleTable): { readonly [Name in `${F}:${ValueType}`]: ElementAttributeRules } {
  // One entry per value type, under the family's names: the keys the type names.
  return Object.fromEntries(VALUE_TYPES.map((type) => [`${of}:${type}`, rules(table(type))])) as { [Name in `${F}:${ValueType}`]: ElementAttributeRules };
}

/** The attributes of every element (policy-language.md §3–§6). URN forms are checked by their own pass. */
const RULES: { readonly [Name in ElementName]: ElementAttributeRules } = {
  policy: rules({ id: required(), name: optional(), description: optional() }),
  mechanism: rules({ event: required(), id: optional(), description: optional() }),
  if: NONE,
  elseif: NONE,
  else: NONE,
  then: NONE,
  allow: rules({ reason: optional() }),
  inhibit: rules({ reason: optional() }),
  modify: rules({
    eventParameter: required(notEmpty),
    method: required(notEmpty),
    jsonPathQuery: optional(jsonPath),
    reason: optional(),
  }),
  delay: rules({ amount: required(delayAmount), unit: { required: true, check: oneOf([...DELAY_UNITS.keys()]), values: [...DELAY_UNITS.keys()] } }),
  execute: rules({ action: required() }),
  and: rules({ mode: optionalOneOf(['EAGER']) }),
  or: rules({ mode: optionalOneOf(['EAGER']) }),
  not: NONE,
  xor: NONE,
  implies: NONE,
  equals: NONE,
  less: NONE,
  lessEqual: NONE,
  greater: NONE,
  greaterEqual: NONE,
  plus: NONE,
  minus: NONE,
  multiply: NONE,
  divide: NONE,
  size: NONE,
  concat: NONE,
  count: NONE,
  regex: rules({ regex: required(reads(readRegex)), mode: optionalOneOf(MATCH_MODES) }),
  contains: rules({ mode: optionalOneOf(MATCH_MODES) }),
  eventHasParameter: rules({ mode: optionalOneOf(MATCH_MODES) }),
  date: rules({ is: required(reads(readComparison)), value: required(reads(readDayOfYear)) }),
  time: rules({ is: required(reads(readComparison)), value: required(reads(readMinuteOfDay)) }),
  day: rules({ value: required(reads(readWeekdays)) }),
  continuousOccurrence: rules({ interval: required(reads(readPositiveDuration)), minOccurrences: optional(count), maxOccurrences: optional(count) }),
  eventOccurrence: rules({ event: required(), mode: optionalOneOf(['FIRST', 'LAST']) }),
  when: rules({ fixedTime: optionalOneOf(FIXED_TIMES) }),
  start: rules({ time: optional(reads(readTimeExpression)) }),
  end: rules({ time: optional(reads(readTimeExpression)) }),
  'constant:true': NONE,
  'constant:false': NONE,
  ...family('constant', (type) => ({ value: required(literal(type)) })),
  ...family('event', (type) => ({ eventParameter: required(notEmpty), default: required(literal(type)), jsonPathQuery: optional(jsonPath) })),
  // Whether a `jsonPathQuery` belongs where it is (only in eventOccurrence) is the history pass's question.
  ...family('parameter', (type) => ({ name: required(notEmpty), value: optional(literal(type)), jsonPathQuery: optional(jsonPath) })),
  ...family('pip', (type) => ({ method: required(), default: required(literal(type)), ttl: optional(reads(readDuration)) })),
  ...family('variable', () => ({ reference: required(notEmpty) })),
  ...family('variableDeclaration', () => ({ name: required(notEmpty) })),
  ...family('valueChanged', (type) => ({ id: required(notEmpty), to: optional(literal(type)) })),
};

export function attributeRules(element: ElementNode): ElementAttributeRules {
  return RULES[element.name];
}

/** The attributes of an element by its language name, for the language description. */
export function attributeRulesOf(name: ElementName): ElementAttributeRules {
  return RULES[name];
}
