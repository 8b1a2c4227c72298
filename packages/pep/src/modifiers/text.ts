import { randomInt } from 'node:crypto';
import { expectString, type ModifierMethod } from './method';

/** Strings are handled by code points, so a character outside the BMP is never cut in half. */
const characters = (text: string): string[] => Array.from(text);

/** `append`: `prefix` before and `suffix` after the string; both default to empty. */
export const appendMethod: ModifierMethod = {
  parameters: ['prefix', 'suffix'],
  prepare(args) {
    const prefix = args.string('prefix', '');
    const suffix = args.string('suffix', '');
    return (value, path) => `${prefix}${expectString('append', value, path)}${suffix}`;
  },
};

/**
 * `anagram`: shuffles `percentage` % (0–100, default 100) of the string's characters among their own
 * positions, chosen at random (crypto); the others stay. A shuffled character may by chance land where it was.
 */
export const anagramMethod: ModifierMethod = {
  parameters: ['percentage'],
  prepare(args) {
    const percentage = args.number('percentage', 100);
    if (percentage < 0 || percentage > 100) throw new RangeError(`parameter \`percentage\` of \`anagram\` must be between 0 and 100, got ${percentage}`);
    return (value, path) => {
      const chars = characters(expectString('anagram', value, path));
      const count = Math.round((chars.length * percentage) / 100);
      const positions = chars.map((_, index) => index);
      // The first `count` entries of a partial Fisher-Yates shuffle are a uniform choice of positions.
      for (let i = 0; i < count; i += 1) swap(positions, i, randomInt(i, positions.length));
      const chosen = positions.slice(0, count);
      const letters = chosen.map((position) => chars[position] ?? '');
      for (let i = letters.length - 1; i > 0; i -= 1) swap(letters, i, randomInt(0, i + 1));
      chosen.forEach((position, i) => (chars[position] = letters[i] ?? ''));
      return chars.join('');
    };
  },
};

/** `password`: every character becomes `*`; the length stays, as in a password field. */
export const passwordMethod: ModifierMethod = {
  parameters: [],
  prepare: () => (value, path) => '*'.repeat(characters(expectString('password', value, path)).length),
};

/**
 * `replaceSubstring`: replaces the literal `substring` (case-sensitive, not a pattern) with `replacement`
 * (default empty); `mode` `ALL` (default), `FIRST` or `LAST` occurrence.
 */
export const replaceSubstringMethod: ModifierMethod = {
  parameters: ['substring', 'replacement', 'mode'],
  prepare(args) {
    const substring = args.string('substring');
    if (substring === '') throw new TypeError('parameter `substring` of `replaceSubstring` must not be empty');
    const replacement = args.string('replacement', '');
    const mode = args.mode('mode', ['ALL', 'FIRST', 'LAST'] as const, 'ALL');
    return (value, path) => {
      const text = expectString('replaceSubstring', value, path);
      if (mode === 'ALL') return text.split(substring).join(replacement);
      const at = mode === 'FIRST' ? text.indexOf(substring) : text.lastIndexOf(substring);
      return at < 0 ? text : `${text.slice(0, at)}${replacement}${text.slice(at + substring.length)}`;
    };
  },
};

/**
 * `shorten`: keeps the first `length` characters (default 1) and marks the cut with `.`: `Ann` → `A.`.
 * A string no longer than `length` stays as it is.
 */
export const shortenMethod: ModifierMethod = {
  parameters: ['length'],
  prepare(args) {
    const length = args.integer('length', 1);
    if (length < 0) throw new RangeError(`parameter \`length\` of \`shorten\` must not be negative, got ${length}`);
    return (value, path) => {
      const chars = characters(expectString('shorten', value, path));
      return chars.length <= length ? chars.join('') : `${chars.slice(0, length).join('')}.`;
    };
  },
};

/**
 * `substring`: the characters from `startIndex` (default 0, inclusive) to `endIndex` (default: the end,
 * exclusive); a negative index counts from the end; indexes beyond either end are clamped; an end before the
 * start gives the empty string.
 */
export const substringMethod: ModifierMethod = {
  parameters: ['startIndex', 'endIndex'],
  prepare(args) {
    const start = args.integer('startIndex', 0);
    const end = args.has('endIndex') ? args.integer('endIndex') : undefined;
    return (value, path) => characters(expectString('substring', value, path)).slice(start, end).join('');
  },
};

function swap<T>(items: T[], a: number, b: number): void {
  const first = items[a] as T;
  items[a] = items[b] as T;
  items[b] = first;
}
