import { closestName } from '@custos/policy-engine';
import { isNode, LineCounter, parseDocument, type Document, type ScalarTag } from 'yaml';

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

/**
 * Reads YAML text; syntax errors come back with the line and column the yaml library found. With `tags` (test files
 * and their fixture files: `!fixture`), a tag the reader does not know is an error too, where the yaml library would
 * only warn and read the value as if it had no tag.
 */
export function readYaml(text: string, tags: readonly ScalarTag[] = []): YamlRead {
  const lineCounter = new LineCounter();
  const document: Document = parseDocument(text, { lineCounter, prettyErrors: true, uniqueKeys: true, customTags: [...tags] });
  const unknownTags = tags.length === 0 ? [] : document.warnings.filter((warning) => warning.code === 'TAG_RESOLVE_FAILED');
  if (document.errors.length > 0 || unknownTags.length > 0) {
    const known = tags.map((tag) => tag.tag ?? '');
    return {
      ok: false,
      problems: [...document.errors, ...unknownTags].map((error) => {
        if (error.code === 'TAG_RESOLVE_FAILED') {
          const tag = /tag: (\S+)/.exec(error.message)?.[1] ?? '';
          const position = error.linePos?.[0];
          const closest = closestName(tag, known);
          const message = known.includes(tag)
            ? `\`${tag}\` stands before a name (\`${tag} ann\`), not before a mapping or a list`
            : `unknown tag \`${tag}\`; ${closest === null ? `this file knows ${known.map((name) => `\`${name}\``).join(', ')}` : `did you mean \`${closest}\`?`}`;
          return position === undefined ? { message } : { message, line: position.line, column: position.col };
        }
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
