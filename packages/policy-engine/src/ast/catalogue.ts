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

export const FAMILIES = ['constant', 'event', 'parameter', 'pip', 'variable', 'variableDeclaration', 'valueChanged'] as const;
export type Family = (typeof FAMILIES)[number];

/** `event:string` …, and `constant:true`/`constant:false`, the boolean constants without a value. */
export type FamilyElement = `${Family}:${ValueType}` | 'constant:true' | 'constant:false';

interface InfoFields {
  readonly role: ElementRole;
  /** The value an expression yields. */
  readonly resultType: ValueType | null;
}

/**
 * What the catalogue knows of an element. A core element is named by its own name, so the tables of the passes
 * that are keyed by it (content models, attribute rules) have an entry for every one; a family element by its
 * family and type.
 */
export type ElementInfo =
  | (InfoFields & { readonly name: CoreElement; readonly family: null; readonly declaredType: null })
  | (InfoFields & {
      readonly name: FamilyElement;
      readonly family: Family;
      /** The T of a typed family element (`parameter:number` → number). */
      readonly declaredType: ValueType;
    });

const CORE_ELEMENTS = [
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
] as const satisfies ReadonlyArray<readonly [string, ElementRole, ValueType | null]>;

/** The elements that are not of a family (`policy`, `and`, `when` …). */
export type CoreElement = (typeof CORE_ELEMENTS)[number][0];

/** Every element of the language, by its name whatever prefix the author chose. */
export type ElementName = CoreElement | FamilyElement;

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
  for (const family of FAMILIES) {
    for (const type of VALUE_TYPES) catalogue.set(`${family}:${type}`, familyElement(family, type));
  }
  for (const name of ['constant:true', 'constant:false'] as const) {
    catalogue.set(name, { name, role: 'expression', family: 'constant', resultType: 'boolean', declaredType: 'boolean' });
  }
  return catalogue;
}

export const CATALOGUE: ReadonlyMap<string, ElementInfo> = buildCatalogue();
