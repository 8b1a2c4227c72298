/**
 * The outline of a JSON text without parsing it: how many values it holds, and the UTF-8 size of the values the
 * per-item limits are about (a top-level member, an element of a top-level array, a member of such an element).
 * `JSON.parse` of a 4 MiB body cannot be cut into slices, and an object of 200,000 keys takes V8 far longer to build
 * than to scan; the outline lets a request past a limit be refused before it is parsed at all. One pass over the
 * characters, no recursion (nesting depth costs no stack).
 */

/** An element of a top-level array: its size, and the sizes of its members when it is an object. */
export interface OutlineItem {
  bytes: number;
  members: Map<string, number>;
}

export interface JsonOutline {
  /** Every value: objects, arrays, strings, numbers, literals. */
  values: number;
  /** Top-level members (when the text is an object) and the UTF-8 size of each one's value as sent. */
  members: Map<string, number>;
  /** The elements of each top-level member that is an array. */
  items: Map<string, OutlineItem[]>;
}

interface Frame {
  array: boolean;
  /** UTF-8 offset where the container starts. */
  start: number;
  /** The member whose value comes next (objects), while it matters for the outline. */
  key: string | undefined;
  /** Elements so far (arrays). */
  index: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The outline, `'budget'` as soon as the text holds more than `maxValues` values, or undefined when it is not JSON
 * (JSON.parse then says where, as for any body).
 */
export function outlineJson(text: string, maxValues: number): JsonOutline | 'budget' | undefined {
  const outline: JsonOutline = { values: 0, members: new Map(), items: new Map() };
  const frames: Frame[] = [];
  const length = text.length;
  let i = 0;
  let bytes = 0;

  const skipSpace = () => {
    for (let c = text.charCodeAt(i); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = text.charCodeAt(++i)) bytes += 1;
  };
  /** Past a string starting at i (its opening quote); false when it does not end. */
  const skipString = (): boolean => {
    i += 1;
    bytes += 1;
    while (i < length) {
      const c = text.charCodeAt(i);
      if (c === QUOTE) {
        i += 1;
        bytes += 1;
        return true;
      }
      if (c === BACKSLASH) {
        i += 2;
        bytes += 2;
        continue;
      }
      // A surrogate pair is 4 bytes, 2 per half.
      bytes += c < 0x80 ? 1 : c < 0x800 || (c >= 0xd800 && c < 0xe000) ? 2 : 3;
      i += 1;
    }
    return false;
  };
  /** Where the value that just ended sits, recorded when the outline wants it. */
  const ended = (start: number) => {
    const size = bytes - start;
    const [root, second, third] = frames;
    if (root === undefined || root.array || root.key === undefined) return;
    if (frames.length === 1) outline.members.set(root.key, size);
    else if (frames.length === 2 && second?.array) itemsOf(root.key)[second.index] = { bytes: size, members: itemsOf(root.key)[second.index]?.members ?? new Map() };
    else if (frames.length === 3 && second?.array && third !== undefined && !third.array && third.key !== undefined) {
      const item = itemsOf(root.key)[second.index];
      if (item !== undefined) item.members.set(third.key, size);
      else itemsOf(root.key)[second.index] = { bytes: 0, members: new Map([[third.key, size]]) };
    }
  };
  const itemsOf = (key: string): OutlineItem[] => {
    let list = outline.items.get(key);
    if (list === undefined) {
      list = [];
      outline.items.set(key, list);
    }
    return list;
  };

  for (;;) {
    // A value starts here.
    skipSpace();
    outline.values += 1;
    if (outline.values > maxValues) return 'budget';
    const start = bytes;
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      const array = c === 0x5b;
      frames.push({ array, start, key: undefined, index: 0 });
      i += 1;
      bytes += 1;
      skipSpace();
      const close = text.charCodeAt(i);
      if (close === (array ? 0x5d : 0x7d)) {
        i += 1;
        bytes += 1;
        frames.pop();
        ended(start);
      } else {
        if (!array) {
          const key = readKey();
          if (key === undefined) return undefined;
          const top = frames[frames.length - 1];
          if (top !== undefined) top.key = key;
        }
        continue;
      }
    } else if (c === QUOTE) {
      if (!skipString()) return undefined;
      ended(start);
    } else {
      // A number or a literal: ASCII up to the next delimiter.
      const from = i;
      for (let d = text.charCodeAt(i); i < length && d !== 0x2c && d !== 0x7d && d !== 0x5d && d !== 0x20 && d !== 0x0a && d !== 0x0d && d !== 0x09; d = text.charCodeAt(++i)) bytes += 1;
      if (i === from) return undefined;
      ended(start);
    }
    // After a value: the next member or element, or the end of containers.
    for (;;) {
      skipSpace();
      const top = frames[frames.length - 1];
      if (top === undefined) return i === length ? outline : undefined;
      const d = text.charCodeAt(i);
      if (d === 0x2c) {
        i += 1;
        bytes += 1;
        if (top.array) top.index += 1;
        else {
          skipSpace();
          const key = readKey();
          if (key === undefined) return undefined;
          top.key = key;
        }
        break;
      }
      if (d !== (top.array ? 0x5d : 0x7d)) return undefined;
      i += 1;
      bytes += 1;
      frames.pop();
      ended(top.start);
    }
  }

  /** A member name and its colon; the name itself only where the outline records it (the first three levels). */
  function readKey(): string | undefined {
    if (text.charCodeAt(i) !== QUOTE) return undefined;
    const from = i;
    if (!skipString()) return undefined;
    const raw = frames.length <= 3 ? text.slice(from + 1, i - 1) : '';
    skipSpace();
    if (text.charCodeAt(i) !== 0x3a) return undefined;
    i += 1;
    bytes += 1;
    if (!raw.includes('\\')) return raw;
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      return undefined;
    }
  }
}
