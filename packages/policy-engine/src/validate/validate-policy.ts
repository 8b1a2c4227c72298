import type { Diagnostic } from '../api';
import type { ElementNode } from '../ast/nodes';
import { diagnostic } from '../diagnostics';
import { attributesPass } from './attributes';
import { identifiersPass } from './identifiers';
import type { ValidationPass } from './pass';
import { solutionPass } from './solution';
import { structurePass } from './structure';
import { supportPass } from './support';
import { typesPass } from './types';

/** In the order a reader fixes things: what may appear, where, with which attributes, of which types, naming what. */
export const VALIDATION_PASSES: readonly ValidationPass[] = [
  supportPass,
  structurePass,
  attributesPass,
  typesPass,
  identifiersPass,
  solutionPass,
];

/** Every problem of every pass; an empty list means the tree compiles. */
export function validatePolicy(policy: ElementNode): Diagnostic[] {
  const diagnostics: Diagnostic[] = [];
  for (const pass of VALIDATION_PASSES) {
    pass.run(policy, (code, message, location) => diagnostics.push(diagnostic(code, message, location)));
  }
  return diagnostics;
}
