import type { LoadOutcome } from './api';
import { compilePolicy } from './compile/compile-policy';
import { diagnostic, sortDiagnostics } from './diagnostics';
import { parsePolicy } from './parse/parse-policy';
import { schemaDiagnostics } from './validate/schema/schema-check';
import { validatePolicy } from './validate/validate-policy';
import { readXml } from './xml/read-xml';

/**
 * Hardened read → parse → structure against our XML Schema, then the named semantic passes → compile. Bad input never
 * throws: it comes back as diagnostics, all of them (every check runs even when an earlier one found problems), in
 * reading order.
 */
export function loadPolicy(xml: string): LoadOutcome {
  if (typeof xml !== 'string') {
    return { ok: false, diagnostics: [diagnostic('invalid_input', `the policy must be a string, found ${typeof xml}`)] };
  }
  const read = readXml(xml);
  if (!read.ok) return { ok: false, diagnostics: read.diagnostics };
  const parsed = parsePolicy(read.root);
  if (!parsed.ok) return { ok: false, diagnostics: parsed.diagnostics };
  const semantic = [...parsed.diagnostics, ...validatePolicy(parsed.policy)];
  const diagnostics = [...semantic, ...schemaDiagnostics(parsed.policy, semantic)];
  if (diagnostics.length > 0) return { ok: false, diagnostics: sortDiagnostics(diagnostics) };
  return { ok: true, policy: compilePolicy(parsed.policy) };
}
