import type { ElementNode } from '../ast/nodes';
import { VALUE_TYPES, type ValueType } from '../ast/value-types';
import { excerpt } from '../diagnostics';
import { DELAY_UNITS, readDelayMilliseconds } from '../parse/delay';
import { readJsonPath } from '../parse/json-path';
import { readLiteral } from '../parse/literals';

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

const jsonPath: AttributeCheck = (value) => {
  const read = readJsonPath(value);
  return read.ok ? null : read.problem;
};

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

// Filters by path belong to eventOccurrence (§6), which is not supported yet; elsewhere the attribute means nothing.
const parameterPath: AttributeCheck = () => 'is only meaningful inside `eventOccurrence`, which is not supported yet';

/** The attributes of each supported element (policy-language.md §3–§5). URN forms are checked by their own pass. */
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
  ['not', {}],
  ['equals', {}],
  ['constant:true', {}],
  ['constant:false', {}],
  ...VALUE_TYPES.flatMap((type): Array<[string, RuleTable]> => [
    [`constant:${type}`, { value: required(literal(type)) }],
    [
      `event:${type}`,
      { eventParameter: required(notEmpty), default: required(literal(type)), jsonPathQuery: optional(jsonPath) },
    ],
    [`parameter:${type}`, { name: required(notEmpty), value: optional(literal(type)), jsonPathQuery: optional(parameterPath) }],
  ]),
];

const RULES: ReadonlyMap<string, ElementAttributeRules> = new Map(
  TABLES.map(([element, table]) => [element, new Map(Object.entries(table))]),
);

export function attributeRules(element: ElementNode): ElementAttributeRules | undefined {
  return RULES.get(element.name);
}
