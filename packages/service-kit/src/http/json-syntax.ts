/**
 * Finds where JSON text first breaks RFC 8259. Node 20 reports many syntax errors without a
 * position, so parseJson uses this to tell the client where; only the failure path pays for it.
 */
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** The character offset of the first JSON syntax error (RFC 8259), or undefined when the text is valid. */
export function jsonErrorOffset(text: string): number | undefined {
  let i = 0;
  const fail = (at: number): never => {
    throw new ScanError(at);
  };
  const skip = () => {
    while (i < text.length && WHITESPACE.has(text.charCodeAt(i))) i++;
  };
  const literal = (word: string) => {
    for (let k = 0; k < word.length; k++, i++) if (text[i] !== word[k]) fail(i);
  };
  const string = () => {
    i++; // opening quote
    for (;;) {
      if (i >= text.length) fail(i);
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return;
      }
      if (c < 0x20) fail(i);
      if (c === 0x5c) {
        const next = text[i + 1];
        if (next === 'u') {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail(i);
          i += 6;
        } else if (next !== undefined && '"\\/bfnrt'.includes(next)) {
          i += 2;
        } else {
          fail(i);
        }
      } else {
        i++;
      }
    }
  };
  const number = () => {
    const found = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400))?.[0] ?? '';
    if (found === '' || found === '-') fail(i);
    i += found.length;
  };
  const value = (depth: number): void => {
    if (depth > 1000) fail(i); // only reached for text JSON.parse refused; keeps the stack shallow
    skip();
    const c = text[i];
    if (c === '{') {
      i++;
      skip();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        skip();
        if (text[i] !== '"') fail(i);
        string();
        skip();
        if (text[i] !== ':') fail(i);
        i++;
        value(depth + 1);
        skip();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        fail(i);
      }
    }
    if (c === '[') {
      i++;
      skip();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value(depth + 1);
        skip();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        fail(i);
      }
    }
    if (c === '"') return string();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return number();
    fail(i);
  };
  try {
    value(0);
    skip();
    if (i < text.length) fail(i);
    return undefined;
  } catch (error) {
    return error instanceof ScanError ? error.offset : undefined;
  }
}

class ScanError extends Error {
  constructor(readonly offset: number) {
    super(`json syntax error at ${offset}`);
  }
}
