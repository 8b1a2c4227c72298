import { isJsonObject, ownValue, hasOwnKey, type JsonObject } from './json-value';

/**
 * The JSONPath subset (RFC 9535 syntax) that modifiers are applied at: `$`, `.name`, `.*`, `['name']`,
 * `["name"]`, `[index]` (negative counts from the end), `[*]`, unions of these (`['a', 'b']`, `[0, 2]`), and
 * descendant segments (`..name`, `..*`, `..[...]`). Filters, slices and functions are refused with a
 * `JsonPathSyntaxError`: the SDK cannot know what they select, so it must not guess (fail closed).
 */
export type Selector = { kind: 'name'; name: string } | { kind: 'index'; index: number } | { kind: 'wildcard' };

export interface Segment {
  descendant: boolean;
  selectors: Selector[];
}

export class JsonPathSyntaxError extends SyntaxError {
  constructor(message: string, readonly offset: number) {
    super(`${message} at offset ${offset}`);
    this.name = 'JsonPathSyntaxError';
  }
}

/** Paths longer than this are refused: real ones are short, and this bounds the work per modifier. */
export const MAX_PATH_LENGTH = 4096;

const NAME_FIRST = /[A-Za-z_\u0080-\uffff]/;
const NAME_CHAR = /[A-Za-z0-9_\u0080-\uffff]/;
const BLANK = /[ \t\n\r]/;
const ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', '/': '/', '\\': '\\', "'": "'", '"': '"' };

export function parseJsonPath(text: string): Segment[] {
  return new PathReader(text).read();
}

class PathReader {
  private at = 0;

  constructor(private readonly text: string) {}

  read(): Segment[] {
    if (this.text.length > MAX_PATH_LENGTH) throw new JsonPathSyntaxError(`path longer than ${MAX_PATH_LENGTH} characters`, MAX_PATH_LENGTH);
    if (this.text[0] !== '$') throw new JsonPathSyntaxError('a path must start with `$`', 0);
    this.at = 1;
    const segments: Segment[] = [];
    while (this.at < this.text.length) {
      this.skipBlanks();
      if (this.at >= this.text.length) break;
      segments.push(this.segment());
    }
    return segments;
  }

  private segment(): Segment {
    const char = this.text[this.at];
    if (char === '[') return { descendant: false, selectors: this.bracket() };
    if (char !== '.') throw this.unexpected();
    this.at += 1;
    const descendant = this.text[this.at] === '.';
    if (descendant) {
      this.at += 1;
      if (this.text[this.at] === '[') return { descendant, selectors: this.bracket() };
    }
    if (this.text[this.at] === '*') {
      this.at += 1;
      return { descendant, selectors: [{ kind: 'wildcard' }] };
    }
    return { descendant, selectors: [{ kind: 'name', name: this.shorthandName() }] };
  }

  private shorthandName(): string {
    const start = this.at;
    const first = this.text[this.at];
    if (first === undefined || !NAME_FIRST.test(first)) throw this.unexpected('a member name');
    this.at += 1;
    while (this.at < this.text.length && NAME_CHAR.test(this.text[this.at] ?? '')) this.at += 1;
    return this.text.slice(start, this.at);
  }

  private bracket(): Selector[] {
    this.at += 1; // '['
    const selectors: Selector[] = [];
    for (;;) {
      this.skipBlanks();
      selectors.push(this.selector());
      this.skipBlanks();
      const char = this.text[this.at];
      this.at += 1;
      if (char === ']') return selectors;
      if (char !== ',') {
        this.at -= 1;
        throw this.unexpected('`,` or `]`');
      }
    }
  }

  private selector(): Selector {
    const char = this.text[this.at];
    if (char === '*') {
      this.at += 1;
      return { kind: 'wildcard' };
    }
    if (char === "'" || char === '"') return { kind: 'name', name: this.quoted(char) };
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) return { kind: 'index', index: this.integer() };
    if (char === '?') throw new JsonPathSyntaxError('filter selectors are not supported', this.at);
    throw this.unexpected('a name, an index or `*`');
  }

  private quoted(quote: string): string {
    const start = this.at;
    this.at += 1;
    let name = '';
    for (;;) {
      const char = this.text[this.at];
      if (char === undefined) throw new JsonPathSyntaxError('unterminated string', start);
      this.at += 1;
      if (char === quote) return name;
      if (char === '\\') name += this.escape();
      else if (char < ' ') throw new JsonPathSyntaxError('control character in a string', this.at - 1);
      else name += char;
    }
  }

  private escape(): string {
    const char = this.text[this.at];
    if (char === 'u') {
      const hex = this.text.slice(this.at + 1, this.at + 5);
      if (!/^[0-9A-Fa-f]{4}$/.test(hex)) throw new JsonPathSyntaxError('bad `\\u` escape', this.at);
      this.at += 5;
      return String.fromCharCode(Number.parseInt(hex, 16));
    }
    const escaped = char === undefined ? undefined : ESCAPES[char];
    if (escaped === undefined) throw new JsonPathSyntaxError('bad escape', this.at);
    this.at += 1;
    return escaped;
  }

  private integer(): number {
    const match = /^-?(0|[1-9][0-9]*)/.exec(this.text.slice(this.at));
    if (!match || match[0] === '-0') throw this.unexpected('an index');
    const next = this.text[this.at + match[0].length];
    if (next === ':') throw new JsonPathSyntaxError('slice selectors are not supported', this.at + match[0].length);
    const index = Number(match[0]);
    if (!Number.isSafeInteger(index)) throw new JsonPathSyntaxError('index out of range', this.at);
    this.at += match[0].length;
    return index;
  }

  private skipBlanks(): void {
    while (this.at < this.text.length && BLANK.test(this.text[this.at] ?? '')) this.at += 1;
  }

  private unexpected(expected?: string): JsonPathSyntaxError {
    const char = this.text[this.at];
    const found = char === undefined ? 'the end' : `\`${char}\``;
    return new JsonPathSyntaxError(expected ? `expected ${expected}, found ${found}` : `unexpected ${found}`, this.at);
  }
}

/** Where a selected value lives, so it can be replaced or removed there. */
export type Location =
  | { kind: 'root'; path: string; value: unknown }
  | { kind: 'member'; path: string; value: unknown; parent: JsonObject; key: string }
  | { kind: 'element'; path: string; value: unknown; parent: unknown[]; index: number };

/** The locations `segments` select in `root`, in RFC 9535 order; only own properties are ever visited. */
export function select(root: unknown, segments: readonly Segment[]): Location[] {
  let nodes: Location[] = [{ kind: 'root', path: '$', value: root }];
  for (const segment of segments) {
    const next: Location[] = [];
    for (const node of nodes) {
      const visited = segment.descendant ? descendantsOf(node) : [node];
      for (const visit of visited) for (const selector of segment.selectors) next.push(...apply(selector, visit));
    }
    nodes = next;
  }
  return nodes;
}

function apply(selector: Selector, node: Location): Location[] {
  const value = node.value;
  if (Array.isArray(value)) {
    if (selector.kind === 'wildcard') return value.map((item, index) => element(node, value, index, item));
    if (selector.kind !== 'index') return [];
    const index = selector.index < 0 ? value.length + selector.index : selector.index;
    return index >= 0 && index < value.length ? [element(node, value, index, value[index])] : [];
  }
  if (isJsonObject(value)) {
    if (selector.kind === 'wildcard') return Object.keys(value).map((key) => member(node, value, key));
    if (selector.kind !== 'name' || !hasOwnKey(value, selector.name)) return [];
    return [member(node, value, selector.name)];
  }
  return [];
}

/** The node and everything below it, parents before children, iteratively (values may nest deeply). */
function descendantsOf(node: Location): Location[] {
  const out: Location[] = [];
  const pending: Location[] = [node];
  while (pending.length > 0) {
    const current = pending.pop() as Location;
    out.push(current);
    const children = apply({ kind: 'wildcard' }, current);
    for (let i = children.length - 1; i >= 0; i -= 1) pending.push(children[i] as Location);
  }
  return out;
}

const member = (node: Location, parent: JsonObject, key: string): Location => ({
  kind: 'member',
  path: `${node.path}[${JSON.stringify(key)}]`,
  value: ownValue(parent, key),
  parent,
  key,
});

const element = (node: Location, parent: unknown[], index: number, value: unknown): Location => ({
  kind: 'element',
  path: `${node.path}[${index}]`,
  value,
  parent,
  index,
});
