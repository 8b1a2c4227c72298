/**
 * An instant as test files and `eval --at` write it: milliseconds since the epoch, or a full ISO 8601 time with a
 * date (`2026-11-28T02:00:00Z`, `2026-11-28T03:00:00+01:00`). Null for anything else, as Date.parse is lenient.
 */
export function readInstant(text: string): number | null {
  if (/^\d+$/.test(text)) {
    const ms = Number(text);
    return Number.isSafeInteger(ms) ? ms : null;
  }
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) return null;
  const ms = Date.parse(text);
  return Number.isNaN(ms) || ms < 0 ? null : ms;
}
