import { WARNING_CODES, type Component, type Warning } from '@custos/contracts';

/** A warning of a registration as the console shows it: what it is about, in the console's words, and pap's. */
export interface ShownWarning {
  /** Where in the component, e.g. `urls[1]`; absent for a warning about the whole registration. */
  path: string | undefined;
  /** The URL the path names, since the form is emptied after a registration and no longer shows it. */
  url: string | undefined;
  /** The console's sentence for a code it knows, otherwise pap's message. */
  summary: string;
  /** pap's own message when the summary is the console's, for its reason (e.g. which address range). */
  detail: string | undefined;
}

/** What the user can do about the warnings, one sentence per code that has advice, in their order. */
export interface RegistrationWarnings {
  items: ShownWarning[];
  advice: string[];
}

const SUMMARIES: Record<string, string> = {
  [WARNING_CODES.egressRefusedByDefault]: 'pdps with the default egress policy (public addresses only) will not call this URL',
};

const ADVICE: Record<string, string> = {
  [WARNING_CODES.egressRefusedByDefault]:
    'The component is registered. For the pdps to call an address like this, set PDP_CALL_ALLOW on every pdp ' +
    '(comma-separated addresses, CIDRs or host:port) to allow it and restart them; or register a public address instead.',
};

/** The URL a warning's `urls[n]` path names in the component that was registered. */
function urlAt(component: Component, path: string | undefined): string | undefined {
  const index = /^urls\[(\d+)\]$/.exec(path ?? '')?.[1];
  return index === undefined ? undefined : component.urls[Number(index)];
}

export function registrationWarnings(component: Component, warnings: Warning[]): RegistrationWarnings {
  const items = warnings.map((w): ShownWarning => {
    const summary = SUMMARIES[w.code];
    return { path: w.path, url: urlAt(component, w.path), summary: summary ?? w.message, detail: summary === undefined ? undefined : w.message };
  });
  const advice = [...new Set(warnings.map((w) => ADVICE[w.code]).filter((a): a is string => a !== undefined))];
  return { items, advice };
}
