import type { CoreElement, ElementInfo, Family } from '../ast/catalogue';
import type { ElementNode } from '../ast/nodes';
import { isExpression } from './pass';

/** One position of a content model: which children it accepts and how many. */
export interface Slot {
  readonly label: string;
  readonly plural: string;
  readonly accepts: (child: ElementNode) => boolean;
  readonly min: number;
  readonly max: number;
}

const named = (name: string, min: number, max: number): Slot => ({
  label: `\`${name}\``,
  plural: `\`${name}\` elements`,
  accepts: (child) => child.name === name,
  min,
  max,
});

const expressions = (min: number, max: number): Slot => ({
  label: 'expression',
  plural: 'expressions',
  accepts: isExpression,
  min,
  max,
});

const parameters: Slot = {
  label: '`parameter:*`',
  plural: '`parameter:*` elements',
  accepts: (child) => child.info.family === 'parameter',
  min: 0,
  max: Infinity,
};

const condition: Slot = { ...expressions(1, 1), label: 'condition', plural: 'conditions' };

/** allow | inhibit | modify+; which combinations are allowed is checked separately (structure.ts). */
const verdicts: Slot = {
  label: '`allow`, `inhibit` or `modify`',
  plural: '`allow`, `inhibit` or `modify` elements',
  accepts: (child) => ['allow', 'inhibit', 'modify'].includes(child.name),
  min: 0,
  max: Infinity,
};

const DECISION: readonly Slot[] = [verdicts, named('delay', 0, 1), named('execute', 0, Infinity)];
const BRANCH: readonly Slot[] = [condition, named('then', 1, 1)];
const EMPTY: readonly Slot[] = [];

const operands = (min: number): readonly Slot[] => [expressions(min, Infinity)];

/** The grammar of policy-language.md §3, §5 and §6, as sequences of slots. */
const MODELS: { readonly [Element in CoreElement]: readonly Slot[] } = {
  policy: [
    {
      label: '`variableDeclaration:*`',
      plural: '`variableDeclaration:*` elements',
      accepts: (child: ElementNode) => child.info.family === 'variableDeclaration',
      min: 0,
      max: Infinity,
    },
    named('mechanism', 1, Infinity),
  ],
  mechanism: [named('if', 1, 1), named('elseif', 0, Infinity), named('else', 0, 1), named('execute', 0, Infinity)],
  if: BRANCH,
  elseif: BRANCH,
  then: DECISION,
  else: DECISION,
  allow: EMPTY,
  inhibit: EMPTY,
  delay: EMPTY,
  modify: [parameters],
  execute: [parameters],
  and: operands(1),
  or: operands(1),
  xor: operands(1),
  not: [expressions(1, 1)],
  implies: [expressions(2, 2)],
  equals: operands(2),
  less: operands(2),
  lessEqual: operands(2),
  greater: operands(2),
  greaterEqual: operands(2),
  regex: operands(1),
  contains: operands(2),
  eventHasParameter: operands(1),
  date: EMPTY,
  time: EMPTY,
  day: EMPTY,
  plus: operands(2),
  minus: operands(2),
  multiply: operands(2),
  divide: operands(2),
  size: [expressions(1, 1)],
  concat: operands(1),
  count: [named('eventOccurrence', 1, 1), named('when', 1, 1)],
  continuousOccurrence: [named('eventOccurrence', 1, 1), named('when', 1, 1)],
  eventOccurrence: [parameters],
  when: [named('start', 0, 1), named('end', 0, 1)],
  start: [named('eventOccurrence', 0, 1)],
  end: [named('eventOccurrence', 0, 1)],
};

const FAMILY_MODELS: { readonly [Of in Family]: readonly Slot[] } = {
  constant: EMPTY,
  event: EMPTY,
  parameter: [expressions(0, 1)],
  pip: [parameters],
  variable: EMPTY,
  variableDeclaration: [expressions(1, 1)],
  valueChanged: [expressions(1, 1)],
};

export function contentModel(node: ElementNode): readonly Slot[] {
  return contentModelOf(node.info);
}

/** The content model of an element by what the catalogue knows of it, for the language description. */
export function contentModelOf(info: ElementInfo): readonly Slot[] {
  return info.family === null ? MODELS[info.name] : FAMILY_MODELS[info.family];
}
