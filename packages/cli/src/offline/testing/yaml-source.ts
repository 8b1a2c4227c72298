import { isNode, LineCounter, parseDocument, type Document } from 'yaml';

export type PathSegment = string | number;

/** `tests[2].expect.allowed` */
export function formatPath(path: readonly PathSegment[]): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else text += text === '' ? segment : `.${segment}`;
  }
  return text;
}

export interface Position {
  line: number;
  column: number;
}

/** A parsed YAML file: its plain value and where each part of it is written. */
export interface YamlSource {
  value: unknown;
  /** Where the value at `path` is written; the nearest enclosing node when the path goes beyond what exists. */
  locate: (path: readonly PathSegment[]) => Position | undefined;
}

export type YamlRead = { ok: true; source: YamlSource } | { ok: false; problems: Array<{ message: string } & Partial<Position>> };

/** Reads YAML text; syntax errors come back with the line and column the yaml library found. */
export function readYaml(text: string): YamlRead {
  const lineCounter = new LineCounter();
  const document: Document = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true });
  if (document.errors.length > 0) {
    return {
      ok: false,
      problems: document.errors.map((error) => {
        const position = error.linePos?.[0];
        const message = firstLine(error.message);
        return position === undefined ? { message } : { message, line: position.line, column: position.col };
      }),
    };
  }
  const value: unknown = document.toJS({ maxAliasCount: 1000 });
  const locate = (path: readonly PathSegment[]): Position | undefined => {
    for (let length = path.length; length >= 0; length -= 1) {
      const node: unknown = length === 0 ? document.contents : document.getIn(path.slice(0, length), true);
      if (isNode(node) && node.range !== undefined && node.range !== null) {
        const { line, col } = lineCounter.linePos(node.range[0]);
        return { line, column: col };
      }
    }
    return undefined;
  };
  return { ok: true, source: { value, locate } };
}

/** The yaml library's message without its trailing excerpt, lower case, without a final period. */
function firstLine(message: string): string {
  const line = (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '').replace(/[.:]$/, '');
  return line.charAt(0).toLowerCase() + line.slice(1);
}
