/**
 * Warnings: a request that succeeded, but whose result may not do what its sender expects. The body of such an
 * answer is fixed by the contract (`true` for a registration), so each warning travels in its own
 * `Custos-Warning` header line, an RFC 8941 structured-field list member: the message as a string, with the
 * parameters `code` (as a problem's) and `path` (into the request body, as a problem error's).
 *
 *   Custos-Warning: "a pdp with the default egress policy will not call ...";code="egress_refused_by_default";path="urls[0]"
 */
export const WARNING_CODES = {
  /** A PIP/PXP URL that a pdp without PDP_CALL_ALLOW refuses to call (docs/security.md, egress). */
  egressRefusedByDefault: 'egress_refused_by_default',
} as const;

export type WarningCode = (typeof WARNING_CODES)[keyof typeof WARNING_CODES];

export interface Warning {
  code: string;
  message: string;
  path?: string;
}

/** An RFC 8941 string: printable ASCII only (anything else becomes `?`), `"` and `\` escaped. */
const sfString = (text: string): string => `"${text.replace(/[^\x20-\x7e]/g, '?').replace(/["\\]/g, (c) => `\\${c}`)}"`;

/** One header line of a warning. */
export function formatWarning(warning: Warning): string {
  return `${sfString(warning.message)};code=${sfString(warning.code)}${warning.path === undefined ? '' : `;path=${sfString(warning.path)}`}`;
}

/**
 * The warnings of a `Custos-Warning` value (several header lines arrive joined by `, `). Members that are not a
 * string with a `code` are skipped: a client shows what it understands and ignores the rest.
 */
export function parseWarnings(value: string | null | undefined): Warning[] {
  const warnings: Warning[] = [];
  let at = 0;
  const text = value ?? '';
  const readString = (): string | undefined => {
    if (text[at] !== '"') return undefined;
    let out = '';
    for (at++; at < text.length; at++) {
      const c = text[at];
      if (c === '\\') out += text[++at] ?? '';
      else if (c === '"') {
        at++;
        return out;
      } else out += c;
    }
    return undefined;
  };
  while (at < text.length) {
    while (text[at] === ' ' || text[at] === ',') at++;
    if (at >= text.length) break;
    const message = readString();
    const params: Record<string, string> = {};
    while (message !== undefined && text[at] === ';') {
      const name = /^;\s*([a-z*][a-z0-9_.*-]*)=/.exec(text.slice(at));
      if (!name?.[1]) break;
      at += name[0].length;
      const param = readString();
      if (param === undefined) break;
      params[name[1]] = param;
    }
    if (message !== undefined && params.code !== undefined) {
      warnings.push({ code: params.code, message, ...(params.path === undefined ? {} : { path: params.path }) });
    }
    // Skip to the next member of the list.
    while (at < text.length && text[at] !== ',') {
      if (text[at] === '"') readString();
      else at++;
    }
  }
  return warnings;
}
