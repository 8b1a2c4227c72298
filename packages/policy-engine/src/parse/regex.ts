import { RE2JS } from 're2js';
import { excerpt, messageStyle } from '../diagnostics';
import { readOk, readProblem, type ReadResult } from './read-result';

/**
 * `regex/@regex`, compiled once at load with RE2 semantics: matching is linear in the input, so no pattern in a
 * policy can stall the decision point (policy-language.md §1). Java-only constructs (back references, look-around,
 * possessive quantifiers) are refused here rather than misread.
 */
/**
 * Compiling is linear too, but a policy full of huge patterns would still make every load slow; real patterns are
 * short.
 */
export const MAX_REGEX_LENGTH = 1000;

export function readRegex(text: string): ReadResult<RE2JS> {
  if (text.length > MAX_REGEX_LENGTH) {
    return readProblem(`the regular expression is longer than ${MAX_REGEX_LENGTH} characters`);
  }
  try {
    return readOk(RE2JS.compile(text));
  } catch (error) {
    // re2js reports a bad pattern by throwing; that is its answer about the text.
    const reason = error instanceof Error ? messageStyle(error.message) : String(error);
    return readProblem(`\`${excerpt(text)}\` is not a valid regular expression (${reason})`);
  }
}
