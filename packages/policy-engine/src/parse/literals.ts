import { excerpt, messageStyle } from '../diagnostics';
import type { JsonValue, ValueType } from '../ast/value-types';
import { readOk, readProblem, type ReadResult } from './read-result';

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Reads a literal of one of the five types, as written in `constant:T/@value`, `event:T/@default` or
 * `parameter:T/@value` (policy-language.md §4). Numbers and booleans tolerate surrounding spaces.
 */
export function readLiteral(type: ValueType, text: string): ReadResult<JsonValue> {
  switch (type) {
    case 'string':
      return readOk(text);
    case 'number':
      return readNumberText(text);
    case 'boolean':
      return readBooleanText(text);
    case 'object':
      return readObjectText(text);
    case 'list':
      return readListText(text);
  }
}

/** A decimal number in a string; also how numeric event parameters sent as strings are accepted. */
export function readNumberText(text: string): ReadResult<number> {
  const trimmed = text.trim();
  if (!NUMBER.test(trimmed)) return readProblem(`\`${excerpt(text)}\` is not a number`);
  const value = Number(trimmed);
  return Number.isFinite(value) ? readOk(value) : readProblem(`\`${excerpt(text)}\` is out of range for a number`);
}

function readBooleanText(text: string): ReadResult<boolean> {
  const trimmed = text.trim();
  if (trimmed === 'true') return readOk(true);
  if (trimmed === 'false') return readOk(false);
  return readProblem(`\`${excerpt(text)}\` is not \`true\` or \`false\``);
}

function readObjectText(text: string): ReadResult<JsonValue> {
  const parsed = parseJson(text);
  if (!parsed.ok) return parsed;
  const value = parsed.value;
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? readOk(value)
    : readProblem(`\`${excerpt(text)}\` is not a json object`);
}

/** A JSON array, also accepting `'...'` strings as policies written for the reference engine do. */
function readListText(text: string): ReadResult<JsonValue> {
  const json = singleQuotedStringsToJson(text);
  if (json === null) return readProblem(`\`${excerpt(text)}\` has an unterminated string`);
  const parsed = parseJson(json);
  if (!parsed.ok) return readProblem(parsed.problem.replace(`\`${excerpt(json)}\``, `\`${excerpt(text)}\``));
  return Array.isArray(parsed.value) ? readOk(parsed.value) : readProblem(`\`${excerpt(text)}\` is not a list`);
}

function parseJson(text: string): ReadResult<JsonValue> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // JSON.parse reports bad input by throwing; that is an answer here, not a failure of ours.
    return readProblem(`\`${excerpt(text)}\` is not valid json (${messageStyle((error as Error).message)})`);
  }
  const problem = jsonValueProblem(value, 0);
  return problem === null ? readOk(value as JsonValue) : readProblem(`\`${excerpt(text)}\` ${problem}`);
}

/**
 * Literal values are walked recursively later (freezing, equality), so their nesting is bounded here, where a
 * pathological literal is still a load-time diagnostic rather than a stack overflow.
 */
const MAX_LITERAL_DEPTH = 64;

function jsonValueProblem(value: unknown, depth: number): string | null {
  if (typeof value === 'number') return Number.isFinite(value) ? null : 'holds a number out of range';
  if (typeof value !== 'object' || value === null) return null;
  if (depth >= MAX_LITERAL_DEPTH) return `is nested deeper than ${MAX_LITERAL_DEPTH} levels`;
  for (const item of Object.values(value)) {
    const problem = jsonValueProblem(item, depth + 1);
    if (problem !== null) return problem;
  }
  return null;
}

/**
 * Rewrites `'...'` strings as JSON strings, leaving `"..."` strings and everything else untouched. Inside single
 * quotes `\'` is a quote and `"` needs no escape; other escapes keep their JSON meaning. Null when a string is open.
 */
function singleQuotedStringsToJson(text: string): string | null {
  let output = '';
  let index = 0;
  for (let character = text[index]; character !== undefined; character = text[index]) {
    if (character === '"') {
      const end = endOfDoubleQuoted(text, index);
      if (end < 0) return null;
      output += text.slice(index, end + 1);
      index = end + 1;
    } else if (character === "'") {
      let content = '';
      index += 1;
      for (let current = text[index]; current !== undefined && current !== "'"; current = text[index]) {
        const next = text[index + 1];
        if (current === '\\' && next !== undefined) {
          content += next === "'" ? "'" : `\\${next}`;
          index += 2;
        } else {
          content += current === '"' ? '\\"' : current;
          index += 1;
        }
      }
      if (index >= text.length) return null;
      output += `"${content}"`;
      index += 1;
    } else {
      output += character;
      index += 1;
    }
  }
  return output;
}

function endOfDoubleQuoted(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length) {
    if (text[index] === '\\') index += 2;
    else if (text[index] === '"') return index;
    else index += 1;
  }
  return -1;
}
