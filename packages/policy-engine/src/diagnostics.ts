import type { Diagnostic } from './api';

/** Where something is in the policy text: 1-based line and, when known, 1-based column. */
export interface SourceLocation {
  readonly line: number;
  readonly column?: number;
}

export function diagnostic(code: string, message: string, location?: SourceLocation): Diagnostic {
  const result: Diagnostic = { code, message };
  if (location !== undefined) {
    result.line = location.line;
    if (location.column !== undefined) result.column = location.column;
  }
  return result;
}

/** Diagnostics in reading order; unlocated ones (whole-document problems) first. */
export function sortDiagnostics(diagnostics: readonly Diagnostic[]): Diagnostic[] {
  return diagnostics
    .map((item, order) => ({ item, order }))
    .sort(
      (a, b) =>
        (a.item.line ?? 0) - (b.item.line ?? 0) ||
        (a.item.column ?? 0) - (b.item.column ?? 0) ||
        a.order - b.order,
    )
    .map(({ item }) => item);
}

/** Lower-cases the first letter and drops a final period, for messages taken from libraries. */
export function messageStyle(message: string): string {
  const trimmed = message.trim().replace(/\.$/, '');
  return trimmed.charAt(0).toLowerCase() + trimmed.slice(1);
}

/** Shortens a user value for a message so one huge attribute cannot flood a diagnostic list. */
export function excerpt(text: string, max = 40): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
