/**
 * Reads the XML examples of a Markdown document, so that every example in docs/policy-language.md is checked.
 *
 * The rules, kept simple on purpose:
 * - every fenced block whose info string is `xml` is an example and must be preceded (nearest non-blank line) by a
 *   marker comment `<!-- KIND: NAME key=value ... -->`; a block without one is a problem, so none goes unchecked;
 * - KIND is one of EXAMPLE_KINDS: `example` (a whole policy document), `example-fragment` (the content of a policy:
 *   declarations and mechanisms), `example-condition` (one boolean expression), `example-invalid` (refused with
 *   `code=`; `wrap=fragment` or `wrap=condition` wraps it like the other kinds, `line=`/`column=` locate the problem),
 *   `example-timer` and `example-timer-invalid` (timer documents);
 * - right after the closing fence, `<!-- decide: {json} -->` comments hold the decisions an example shows and
 *   `<!-- timer: {json} -->` comments what a timer document reads as; an expectation anywhere else is a problem.
 */

import { policyXml } from '../support/policies';

export const EXAMPLE_KINDS = [
  'example',
  'example-fragment',
  'example-condition',
  'example-invalid',
  'example-timer',
  'example-timer-invalid',
] as const;
export type ExampleKind = (typeof EXAMPLE_KINDS)[number];

export interface DocExample {
  readonly kind: ExampleKind;
  readonly name: string;
  /** `key=value` words of the marker, e.g. `code` and `wrap`. */
  readonly options: ReadonlyMap<string, string>;
  readonly xml: string;
  /** 1-based line of the opening fence in the Markdown text, for messages. */
  readonly line: number;
  /** Parsed `decide` comments, in order. */
  readonly decisions: readonly unknown[];
  /** Parsed `timer` comments, in order. */
  readonly timers: readonly unknown[];
}

export interface Extraction {
  readonly examples: DocExample[];
  /** Everything that keeps an example from being checked; empty for a document in order. */
  readonly problems: string[];
}

const MARKER = /^<!--\s*([a-z-]+):\s*([A-Za-z0-9._-]+)((?:\s+[a-z]+=[^\s]+)*)\s*-->$/;
const FENCE = /^\s*(`{3,}|~{3,})\s*([^\s`]*)/;
const EXPECTATION_START = /^<!--\s*(decide|timer):/;
const DECIDING_KINDS: ReadonlySet<ExampleKind> = new Set(['example', 'example-fragment', 'example-condition']);

function isClosingFence(line: string, marker: string): boolean {
  const trimmed = line.trim();
  return trimmed.startsWith(marker) && /^[`~]+$/.test(trimmed) && trimmed[0] === marker[0];
}

function isKind(text: string): text is ExampleKind {
  return (EXAMPLE_KINDS as readonly string[]).includes(text);
}

interface Expectation {
  readonly label: 'decide' | 'timer';
  readonly value: unknown;
  /** Index of the line after the comment. */
  readonly next: number;
}

/** Reads the `<!-- decide: ... -->` comment that starts at `start` (it may span lines). */
function readExpectation(lines: readonly string[], start: number, problems: string[]): Expectation | null {
  const label = EXPECTATION_START.exec(lineAt(lines, start).trim())?.[1] === 'timer' ? 'timer' : 'decide';
  let text = '';
  for (let index = start; index < lines.length; index += 1) {
    text += `${lineAt(lines, index)}\n`;
    const end = text.indexOf('-->');
    if (end < 0) continue;
    const body = text.slice(text.indexOf(':') + 1, end);
    try {
      return { label, value: JSON.parse(body) as unknown, next: index + 1 };
    } catch (error) {
      problems.push(`line ${start + 1}: the ${label} comment is not valid json (${(error as Error).message})`);
      return { label, value: null, next: index + 1 };
    }
  }
  problems.push(`line ${start + 1}: the ${label} comment is never closed`);
  return null;
}

function lineAt(lines: readonly string[], index: number): string {
  return lines[index] ?? '';
}

export function extractExamples(markdown: string): Extraction {
  const lines = markdown.split(/\r?\n/);
  const examples: DocExample[] = [];
  const problems: string[] = [];
  const names = new Set<string>();
  /** Lines holding expectations that belong to a block; any other expectation comment is an orphan. */
  const attached = new Set<number>();
  /** Marker lines that introduced a block; any other marker is an orphan. */
  const usedMarkers = new Set<number>();

  let index = 0;
  while (index < lines.length) {
    const fence = FENCE.exec(lineAt(lines, index));
    if (fence === null) {
      index += 1;
      continue;
    }
    const marker = fence[1] ?? '```';
    const info = fence[2] ?? '';
    const open = index;
    let close = open + 1;
    while (close < lines.length && !isClosingFence(lineAt(lines, close), marker)) close += 1;
    if (close >= lines.length) {
      problems.push(`line ${open + 1}: a fenced block is never closed`);
      break;
    }
    index = close + 1;
    if (info.toLowerCase() !== 'xml') continue;

    let before = open - 1;
    while (before >= 0 && lineAt(lines, before).trim() === '') before -= 1;
    const found = before >= 0 ? MARKER.exec(lineAt(lines, before).trim()) : null;
    const kind = found?.[1];
    const name = found?.[2];
    if (kind === undefined || name === undefined || !isKind(kind)) {
      problems.push(`line ${open + 1}: an xml block without an example marker (\`<!-- example: name -->\` or another kind)`);
      continue;
    }
    usedMarkers.add(before);
    if (names.has(name)) problems.push(`line ${open + 1}: the example name \`${name}\` is used twice`);
    names.add(name);
    const options = new Map<string, string>();
    for (const word of (found?.[3] ?? '').trim().split(/\s+/).filter((item) => item !== '')) {
      const equals = word.indexOf('=');
      options.set(word.slice(0, equals), word.slice(equals + 1));
    }

    const decisions: unknown[] = [];
    const timers: unknown[] = [];
    let after = close + 1;
    for (;;) {
      while (after < lines.length && lineAt(lines, after).trim() === '') after += 1;
      if (after >= lines.length || !EXPECTATION_START.test(lineAt(lines, after).trim())) break;
      const expectation = readExpectation(lines, after, problems);
      if (expectation === null) break;
      for (let line = after; line < expectation.next; line += 1) attached.add(line);
      (expectation.label === 'decide' ? decisions : timers).push(expectation.value);
      after = expectation.next;
    }

    if (kind === 'example-invalid' || kind === 'example-timer-invalid') {
      if (!options.has('code')) problems.push(`line ${open + 1}: \`${name}\` is invalid but names no \`code=\``);
    }
    if (DECIDING_KINDS.has(kind) && decisions.length === 0) {
      problems.push(`line ${open + 1}: \`${name}\` shows no decision (add a \`<!-- decide: {...} -->\` after the block)`);
    }
    if (!DECIDING_KINDS.has(kind) && decisions.length > 0) {
      problems.push(`line ${open + 1}: \`${name}\` is a ${kind}, which takes no decide comment`);
    }
    if (kind !== 'example-timer' && timers.length > 0) {
      problems.push(`line ${open + 1}: \`${name}\` is a ${kind}, which takes no timer comment`);
    }
    examples.push({ kind, name, options, xml: lines.slice(open + 1, close).join('\n'), line: open + 1, decisions, timers });
  }

  lines.forEach((line, position) => {
    const trimmed = line.trim();
    if (EXPECTATION_START.test(trimmed) && !attached.has(position)) {
      problems.push(`line ${position + 1}: an expectation that follows no example block`);
    }
    const marker = MARKER.exec(trimmed);
    if (marker !== null && (marker[1] ?? '').startsWith('example') && !usedMarkers.has(position)) {
      problems.push(`line ${position + 1}: an example marker that introduces no xml block`);
    }
  });
  return { examples, problems };
}

/** The action of an `example-condition`'s mechanism. */
export const DEFAULT_ACTION = 'urn:action:shop:order';

/** The document the engine reads for an example, by the wrapping rules of policy-language.test.ts. */
export function documentOf(example: DocExample): string {
  const wrap = example.kind === 'example-invalid' ? example.options.get('wrap') : example.kind.replace(/^example-?/, '');
  const id = `urn:policy:shop:${example.name}`;
  switch (wrap) {
    case 'fragment':
      return policyXml(example.xml, id);
    case 'condition':
      return policyXml(
        `<mechanism event="${DEFAULT_ACTION}"><if>\n${example.xml}\n<then><allow/></then></if><else><inhibit/></else></mechanism>`,
        id,
      );
    case undefined:
    case '':
    case 'timer':
      return example.xml;
    default:
      throw new Error(`example \`${example.name}\`: unknown wrap \`${String(wrap)}\``);
  }
}
