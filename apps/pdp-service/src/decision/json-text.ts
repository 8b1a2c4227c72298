/**
 * JSON text of the values of a decision line, written directly: most of them are ids and URNs that need no
 * escaping, and checking that is cheaper than JSON.stringify walking a whole record (measured: the record's
 * JSON.stringify was about half of the line's cost on the event loop).
 */

/** Printable ASCII without `"` and `\`: a string of only these is its own JSON text between quotes. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** Whether `"value"` is already the JSON text of the string `value` (printable ASCII only, no quote, no backslash). */
export const isPlainJson = (value: string): boolean => PLAIN.test(value);

export const jsonString = (value: string): string => (PLAIN.test(value) ? `"${value}"` : JSON.stringify(value));

/** Like JSON.stringify of a number: non-finite numbers are null. */
export const jsonNumber = (value: number): string => (Number.isFinite(value) ? String(value) : 'null');

export function jsonStrings(values: readonly string[]): string {
  if (values.length === 0) return '[]';
  let text = `[${jsonString(values[0] ?? '')}`;
  for (let i = 1; i < values.length; i++) text += `,${jsonString(values[i] ?? '')}`;
  return `${text}]`;
}

/**
 * jsonString remembering its last value: for a field that is the same in line after line (the client, the action,
 * its solution, a matched policy), the text is made once instead of checked again per line.
 */
export function lastJsonString(): (value: string) => string {
  let last = '';
  let lastText = '""';
  return (value) => {
    if (value !== last) {
      last = value;
      lastText = jsonString(value);
    }
    return lastText;
  };
}
