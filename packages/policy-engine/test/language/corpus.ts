import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { documentOf, extractExamples } from '../docs/doc-examples';
import { policyXml } from '../support/policies';

/**
 * Every policy (or timer) document written down in the repository: whole `<policy>` documents in its XML, Markdown, JSON and
 * source files (JSON strings, arrays of lines and conformance cases' `{id, body}` read as JSON; templates with `${…}` left out, since their text is
 * not the document), and the examples of docs/policy-language.md wrapped as their test wraps them.
 */
export const REPOSITORY = join(__dirname, '..', '..', '..', '..');

const SKIPPED = new Set(['node_modules', 'dist', 'dist-packages', '.git', '.turbo', 'coverage']);
const EXTENSIONS = /\.(xml|md|json|ts|tsx|mjs|js)$/;
/** A whole document of a root element, with or without a prefix. */
const documentPattern = (root: 'policy' | 'timer'): RegExp => new RegExp(`<([A-Za-z_][\\w.-]*:)?${root}[\\s>][\\s\\S]*?</\\1?${root}>`, 'g');

export interface CorpusPolicy {
  readonly where: string;
  readonly xml: string;
}

function* files(folder: string): Generator<string> {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (entry.isDirectory() && !SKIPPED.has(entry.name)) yield* files(join(folder, entry.name));
    else if (entry.isFile() && EXTENSIONS.test(entry.name)) yield join(folder, entry.name);
  }
}

function jsonStrings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) {
    const lines = value.every((item) => typeof item === 'string') ? [value.join('\n')] : [];
    return [...lines, ...value.flatMap(jsonStrings)];
  }
  if (value !== null && typeof value === 'object') {
    // A conformance case's policy given as its id and the lines of its body, which its test wraps so.
    const { id, body } = value as { id?: unknown; body?: unknown };
    const wrapped = typeof id === 'string' && Array.isArray(body) && body.every((line) => typeof line === 'string') ? [policyXml(body.join('\n'), id)] : [];
    return [...wrapped, ...Object.values(value).flatMap(jsonStrings)];
  }
  return [];
}

function textsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  if (!file.endsWith('.json')) return [text];
  try {
    return jsonStrings(JSON.parse(text) as unknown);
  } catch {
    return [text];
  }
}

export function repositoryPolicies(): CorpusPolicy[] {
  return repositoryDocuments('policy', ['example', 'example-fragment', 'example-condition']);
}

export function repositoryTimers(): CorpusPolicy[] {
  return repositoryDocuments('timer', ['example-timer']);
}

function repositoryDocuments(root: 'policy' | 'timer', kinds: readonly string[]): CorpusPolicy[] {
  const found = new Map<string, string>();
  const pattern = documentPattern(root);
  for (const file of files(REPOSITORY)) {
    for (const text of textsOf(file)) {
      for (const match of text.matchAll(pattern)) {
        if (match[0].includes('${')) continue;
        if (!found.has(match[0])) found.set(match[0], relative(REPOSITORY, file));
      }
    }
  }
  const markdown = readFileSync(join(REPOSITORY, 'docs', 'policy-language.md'), 'utf8');
  for (const example of extractExamples(markdown).examples) {
    if (!kinds.includes(example.kind)) continue;
    found.set(documentOf(example), `docs/policy-language.md, example ${example.name}`);
  }
  return [...found].map(([xml, where]) => ({ xml, where }));
}
