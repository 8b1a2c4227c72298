/** Punctuation waiting on the stack; a class of its own so no user value can be mistaken for it. */
class Text {
  constructor(readonly text: string) {}
}

/**
 * JSON text with object keys sorted, so equal values (by the language's deep equality) give equal text: the key under
 * which one request remembers a PIP answer. Iterative for the same reason as deep-equal: values come from outside.
 */
export function canonicalJson(value: unknown): string {
  let output = '';
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const item = pending.pop();
    if (item instanceof Text) {
      output += item.text;
    } else if (Array.isArray(item)) {
      pending.push(new Text(']'));
      for (let index = item.length - 1; index >= 0; index -= 1) {
        pending.push(item[index]);
        if (index > 0) pending.push(new Text(','));
      }
      output += '[';
    } else if (typeof item === 'object' && item !== null) {
      const record = item as Record<string, unknown>;
      const keys = Object.keys(record).sort();
      pending.push(new Text('}'));
      for (let index = keys.length - 1; index >= 0; index -= 1) {
        const key = keys[index];
        if (key === undefined) continue;
        pending.push(record[key]);
        pending.push(new Text(`${JSON.stringify(key)}:`));
        if (index > 0) pending.push(new Text(','));
      }
      output += '{';
    } else {
      output += item === undefined ? 'null' : JSON.stringify(item);
    }
  }
  return output;
}
