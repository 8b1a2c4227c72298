import type { LoadOutcome } from './api';
import type { ValidPolicy } from './ast/valid/policy';
import { compilePolicy } from './compile/compile-policy';
import { diagnostic } from './diagnostics';
import { parsePolicy } from './parse/parse-policy';
import { validatePolicy, type ValidationOutcome } from './validate/validate-policy';
import { readXml } from './xml/read-xml';

/**
 * Hardened read → parse → the named validation passes (the schema pass last), which hand over a validated tree →
 * compile. Bad input never throws: it comes back as diagnostics, all of them (every check runs even when an earlier
 * one found problems), in reading order.
 */
export function loadPolicy(xml: string): LoadOutcome {
  const checked = checkPolicyXml(xml);
  // The explaining program is compiled from the text again on the first explanation: the text is far smaller to keep.
  return checked.ok ? { ok: true, policy: compilePolicy(checked.policy, () => revalidated(xml)) } : checked;
}

/** Everything of `loadPolicy` but compiling: the validated tree, or every problem. */
export function checkPolicyXml(xml: string): ValidationOutcome {
  if (typeof xml !== 'string') {
    return { ok: false, diagnostics: [diagnostic('invalid_input', `the policy must be a string, found ${typeof xml}`)] };
  }
  const read = readXml(xml);
  if (!read.ok) return { ok: false, diagnostics: read.diagnostics };
  const parsed = parsePolicy(read.root);
  if (!parsed.ok) return { ok: false, diagnostics: parsed.diagnostics };
  return validatePolicy(parsed.policy, parsed.diagnostics);
}

/** The tree of a text that loaded once: it validates the same way again. */
function revalidated(xml: string): ValidPolicy {
  const checked = checkPolicyXml(xml);
  if (!checked.ok) throw new Error('bug: a policy that loaded no longer validates');
  return checked.policy;
}
