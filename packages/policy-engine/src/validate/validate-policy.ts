import type { Diagnostic } from '../api';
import type { ElementNode } from '../ast/nodes';
import { diagnostic } from '../diagnostics';
import { attributesPass } from './attributes';
import { duplicateParametersPass } from './duplicate-parameters';
import { historyPass } from './history';
import { identifiersPass } from './identifiers';
import type { ValidationPass } from './pass';
import { referencesPass } from './references';
import { solutionPass } from './solution';
import { structurePass } from './structure';
import { typesPass } from './types';

/**
 * In the order a reader fixes things: where elements may appear, with which attributes, of which types, naming
 * what, referring to what.
 */
export const VALIDATION_PASSES: readonly ValidationPass[] = [
  structurePass,
  attributesPass,
  historyPass,
  typesPass,
  identifiersPass,
  referencesPass,
  solutionPass,
  duplicateParametersPass,
];

/** Every problem of every pass; an empty list means the tree compiles. */
export function validatePolicy(policy: ElementNode): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const pass of VALIDATION_PASSES) {
    pass.run(policy, (code, message, location) => diagnostics.push(diagnostic(code, message, location)));
  }
  return diagnostics;
}
