import { VALUE_TYPES, type ValueType } from './value-types';

/** Every element of the language (policy-language.md §3–§6) with its role and the type of value it yields. */
export type ElementRole =
  /** policy, mechanism, branches */
  | 'structure'
  /** allow, inhibit, modify, delay, execute */
  | 'decision'
  /** anything with a value */
  | 'expression'
  /** parameter:T */
  | 'parameter'
  /** variableDeclaration:T */
  | 'declaration'
  /** the helpers of count and continuousOccurrence: eventOccurrence, when, start, end */
  | 'history';

export type Family = 'constant' | 'event' | 'parameter' | 'pip' | 'variable' | 'variableDeclaration' | 'valueChanged';

export interface ElementInfo {
  readonly name: string;
  readonly role: ElementRole;
  readonly family: Family | null;
  /** The value an expression yields. */
  readonly resultType: ValueType | null;
  /** The T of a typed family element (`parameter:number` → number). */
  readonly declaredType: ValueType | null;
}

const CORE_ELEMENTS: ReadonlyArray<readonly [string, ElementRole, ValueType | null]> = [
  ['policy', 'structure', null],
  ['mechanism', 'structure', null],
  ['if', 'structure', null],
  ['elseif', 'structure', null],
  ['else', 'structure', null],
  ['then', 'structure', null],
  ['allow', 'decision', null],
  ['inhibit', 'decision', null],
  ['modify', 'decision', null],
  ['delay', 'decision', null],
  // A decision element in a mechanism or a branch; a boolean expression inside a condition.
  ['execute', 'decision', 'boolean'],
  ...(['and', 'or', 'xor', 'not', 'implies', 'equals', 'less', 'lessEqual', 'greater', 'greaterEqual', 'regex',
    'contains', 'eventHasParameter', 'date', 'time', 'day', 'continuousOccurrence'] as const).map(
    (name) => [name, 'expression', 'boolean'] as const,
  ),
  ...(['plus', 'minus', 'multiply', 'divide', 'size', 'count'] as const).map((name) => [name, 'expression', 'number'] as const),
  ['concat', 'expression', 'string'],
  ...(['eventOccurrence', 'when', 'start', 'end'] as const).map((name) => [name, 'history', null] as const),
];

function familyElement(family: Family, type: ValueType): ElementInfo {
  const roles: Record<Family, ElementRole> = {
    constant: 'expression',
    event: 'expression',
    parameter: 'parameter',
    pip: 'expression',
    variable: 'expression',
    variableDeclaration: 'declaration',
    valueChanged: 'expression',
  };
  const role = roles[family];
  const resultType = family === 'valueChanged' ? 'boolean' : role === 'expression' ? type : null;
  return {
    name: `${family}:${type}`,
    role,
    family,
    resultType,
    declaredType: type,
  };
}

function buildCatalogue(): ReadonlyMap<string, ElementInfo> {
  const catalogue = new Map<string, ElementInfo>();
  for (const [name, role, resultType] of CORE_ELEMENTS) {
    catalogue.set(name, { name, role, family: null, resultType, declaredType: null });
  }
  const families: Family[] = ['constant', 'event', 'parameter', 'pip', 'variable', 'variableDeclaration', 'valueChanged'];
  for (const family of families) {
    for (const type of VALUE_TYPES) catalogue.set(`${family}:${type}`, familyElement(family, type));
  }
  for (const truth of ['true', 'false']) {
    const name = `constant:${truth}`;
    catalogue.set(name, { name, role: 'expression', family: 'constant', resultType: 'boolean', declaredType: 'boolean' });
  }
  return catalogue;
}

export const CATALOGUE: ReadonlyMap<string, ElementInfo> = buildCatalogue();
