import {
  FunctionExpressionType,
  JSONPathEnvironment,
  type FilterFunction,
  type JSONPathQuery,
} from 'json-p3';
import { RE2JS } from 're2js';
import { excerpt, messageStyle } from '../diagnostics';
import { readOk, readProblem, type ReadResult } from './read-result';

/**
 * RFC 9535 `match()`/`search()` on RE2 instead of the library's JavaScript RegExp, so a pattern in a policy can
 * never stall a request (policy-language.md §1: regular expressions match in linear time).
 */
class Re2FilterFunction implements FilterFunction {
  readonly argTypes = [FunctionExpressionType.ValueType, FunctionExpressionType.ValueType];
  readonly returnType = FunctionExpressionType.LogicalType;
  private readonly cache = new Map<string, RE2JS | null>();

  constructor(private readonly wholeString: boolean) {}

  call(value: unknown, pattern: unknown): boolean {
    if (typeof value !== 'string' || typeof pattern !== 'string') return false;
    const expression = this.compiled(pattern);
    if (expression === null) return false;
    return this.wholeString ? expression.matches(value) : expression.test(value);
  }

  private compiled(pattern: string): RE2JS | null {
    if (this.cache.has(pattern)) return this.cache.get(pattern) ?? null;
    let expression: RE2JS | null;
    try {
      expression = RE2JS.compile(pattern);
    } catch {
      // RFC 9535: an invalid pattern makes the test false, it is not an error.
      expression = null;
    }
    // Patterns are nearly always literals in the policy; the bound only guards against patterns built from data.
    if (this.cache.size >= 256) this.cache.clear();
    this.cache.set(pattern, expression);
    return expression;
  }
}

const ENVIRONMENT = new JSONPathEnvironment();
ENVIRONMENT.functionRegister.set('match', new Re2FilterFunction(true));
ENVIRONMENT.functionRegister.set('search', new Re2FilterFunction(false));

/** Compiles a `jsonPathQuery` once, at load time. */
export function readJsonPath(text: string): ReadResult<JSONPathQuery> {
  try {
    return readOk(ENVIRONMENT.compile(text));
  } catch (error) {
    // The library reports a bad path by throwing (JSONPathSyntaxError and its kin); that is an answer about the text.
    const reason = error instanceof Error ? messageStyle(error.message) : String(error);
    return readProblem(`\`${excerpt(text)}\` is not a valid jsonpath (${reason})`);
  }
}
