import type { Diagnostic } from '../api';
import { walk, type ElementNode } from '../ast/nodes';
import type { ValidPolicy } from '../ast/valid/policy';
import { diagnostic, sortDiagnostics } from '../diagnostics';
import { attributesPass } from './attributes';
import { buildValidPolicy } from './build/build-policy';
import { TreeGap } from './build/read-node';
import { duplicateParametersPass } from './duplicate-parameters';
import { historyPass } from './history';
import { identifiersPass } from './identifiers';
import type { Report, ValidationPass } from './pass';
import { referencesPass } from './references';
import { schemaPass } from './schema/schema-check';
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

export type ValidationOutcome = { ok: true; policy: ValidPolicy } | { ok: false; diagnostics: Diagnostic[] };

/**
 * Every problem of every pass, in reading order after `earlier` (the parser's); or, when there is none, the
 * validated tree. The schema pass runs last, because it reports only what the others left unsaid.
 */
/** Problems of an element's own attributes stand whatever its children; everything else about it may be a follow-on. */
const OWN_ATTRIBUTE_CODES: ReadonlySet<string> = new Set(['unknown_attribute', 'missing_attribute', 'invalid_attribute']);

/**
 * Drops what the passes said about elements that lost a child to an unknown element (`if needs exactly one
 * condition, found 0` after `unknown element \`equal\``): the unknown element is the problem to fix, and the rest
 * follows from it. The parser's own diagnostics (the first `fromParser`) always stay.
 */
function withoutFollowOns(policy: ElementNode, diagnostics: readonly Diagnostic[], fromParser: number): Diagnostic[] {
  const incomplete = new Set<string>();
  walk(policy, (node) => {
    if (node.incomplete === true) incomplete.add(`${node.location.line}:${node.location.column ?? ''}`);
  });
  if (incomplete.size === 0) return [...diagnostics];
  return diagnostics.filter(
    (item, index) => index < fromParser || OWN_ATTRIBUTE_CODES.has(item.code) || !incomplete.has(`${item.line ?? ''}:${item.column ?? ''}`),
  );
}

export function validatePolicy(policy: ElementNode, earlier: readonly Diagnostic[] = []): ValidationOutcome {
  const diagnostics: Diagnostic[] = [...earlier];
  const report: Report = (code, message, location) => {
    diagnostics.push(diagnostic(code, message, location));
  };
  for (const pass of [...VALIDATION_PASSES, schemaPass]) pass.run(policy, report, diagnostics);
  if (diagnostics.length > 0) return { ok: false, diagnostics: sortDiagnostics(withoutFollowOns(policy, diagnostics, earlier.length)) };
  try {
    return { ok: true, policy: buildValidPolicy(policy) };
  } catch (error) {
    if (!(error instanceof TreeGap)) throw error;
    return { ok: false, diagnostics: [diagnostic('schema_violation', `structure: ${error.message}`, error.location)] };
  }
}
