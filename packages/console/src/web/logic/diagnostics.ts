import type { ProblemItem } from './problem';

/** A problem placed in the text: offsets for the editor, the 1-based line for people. */
export interface PlacedDiagnostic {
  from: number;
  to: number;
  line: number | null;
  message: string;
}

/**
 * Places pap's diagnostics (1-based line and column) in `text`. A located one covers from its column to the end of
 * the word there (or one character); one with a line only covers that line; one without a location covers the
 * first line, so it is still seen. Lines past the end land on the last one.
 */
export function placeDiagnostics(text: string, items: readonly ProblemItem[]): PlacedDiagnostic[] {
  const starts = [0];
  for (let i = 0; i < text.length; i += 1) if (text[i] === '\n') starts.push(i + 1);
  const lineEnd = (index: number) => (index + 1 < starts.length ? (starts[index + 1] ?? text.length) - 1 : text.length);
  return items.map((item) => {
    if (item.line === undefined) {
      return { from: 0, to: lineEnd(0), line: null, message: item.message };
    }
    const index = Math.min(Math.max(item.line, 1), starts.length) - 1;
    const start = starts[index] ?? 0;
    const end = lineEnd(index);
    if (item.column === undefined) return { from: start, to: Math.max(start, end), line: index + 1, message: item.message };
    const from = Math.min(start + Math.max(item.column, 1) - 1, end);
    const word = /^[^\s<>"'=/]+/.exec(text.slice(from, end));
    const to = word ? from + word[0].length : Math.min(from + 1, text.length);
    return { from, to: Math.max(to, from), line: index + 1, message: item.message };
  });
}
