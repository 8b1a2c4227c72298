import type { LoadOutcome } from './api';
import { compilePolicy } from './compile/compile-policy';
import { diagnostic, sortDiagnostics } from './diagnostics';
import { parsePolicy } from './parse/parse-policy';
import { validatePolicy } from './validate/validate-policy';
import { readXml } from './xml/read-xml';

/**
 * Hardened read → parse → validate → compile. Bad input never throws: it comes back as diagnostics, all of them
 * (every pass runs even when an earlier one found problems), in reading order.
 */
export function loadPolicy(xml: string): LoadOutcome {
  if (typeof xml !== 'string') {
    return { ok: false, diagnostics: [diagnostic('invalid_input', `the policy must be a string, found ${typeof xml}`)] };
  }
  const read = readXml(xml);
  if (!read.ok) return { ok: false, diagnostics: read.diagnostics };
  const parsed = parsePolicy(read.root);
  if (!parsed.ok) return { ok: false, diagnostics: parsed.diagnostics };
  const diagnostics = [...parsed.diagnostics, ...validatePolicy(parsed.policy)];
  if (diagnostics.length > 0) return { ok: false, diagnostics: sortDiagnostics(diagnostics) };
  return { ok: true, policy: compilePolicy(parsed.policy) };
}
