import { WARNING_CODES, type Component, type ProblemError, type Warning } from '@custos/contracts';
import { DEFAULT_EGRESS_POLICY, egressRefusal, unconditionalRefusal } from '@custos/service-kit';

/** Header lines are bounded, so that an answer's headers stay far below what clients accept (16 KiB in Node). */
const MAX_WARNINGS = 8;

/**
 * What the pdps' egress policy says about a PIP's or PXP's URLs, judged here with the same rules (service-kit)
 * and without resolving any name: a host name can resolve differently when it is called, so only the pdp checks
 * what it resolves to. A URL no pdp ever calls, whatever PDP_CALL_ALLOW says (user information), is an error;
 * one a pdp with the default policy (public addresses only) refuses is a warning, since its operators may allow
 * it. PEPs are never called by a pdp, and `rmi` URLs never either: nothing to say about them.
 */
export function componentEgress(component: Component): { errors: ProblemError[]; warnings: Warning[] } {
  const errors: ProblemError[] = [];
  const warnings: Warning[] = [];
  if (component.id.componentType !== 'PIP' && component.id.componentType !== 'PXP') return { errors, warnings };
  component.urls.forEach((written, index) => {
    let url: URL;
    try {
      url = new URL(written);
    } catch {
      return; // already an error of componentRuleErrors
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return;
    const path = `urls[${index}]`;
    if (unconditionalRefusal(url) !== undefined) {
      // Not echoed: the user information may be a password.
      errors.push({ path, message: 'holds user information (`user:password@`), which no pdp ever calls; remove it' });
      return;
    }
    const refused = egressRefusal(url, DEFAULT_EGRESS_POLICY);
    if (refused === undefined) return;
    warnings.push({
      code: WARNING_CODES.egressRefusedByDefault,
      path,
      message:
        `a pdp with the default egress policy does not call this url: ${refused}; registered anyway, ` +
        'for pdps whose PDP_CALL_ALLOW allows it (host names are checked when called, not here)',
    });
  });
  if (warnings.length <= MAX_WARNINGS) return { errors, warnings };
  const more = { code: WARNING_CODES.egressRefusedByDefault, message: `and ${warnings.length - MAX_WARNINGS} more urls the default egress policy refuses` };
  return { errors, warnings: [...warnings.slice(0, MAX_WARNINGS), more] };
}
