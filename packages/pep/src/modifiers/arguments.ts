import type { EventParameter } from '@custos/contracts';
import { decodeParameterValue } from '../parameter-value';

/**
 * The parameters of one modifier, decoded as the pdp decodes parameter values. Unknown and repeated names are
 * refused: a misspelt optional parameter would otherwise be silently replaced by its default.
 */
export class Arguments {
  private readonly values = new Map<string, unknown>();

  constructor(
    readonly method: string,
    parameters: readonly EventParameter[],
    accepted: readonly string[],
  ) {
    for (const parameter of parameters) {
      if (!accepted.includes(parameter.name)) {
        const known = accepted.length === 0 ? 'none' : accepted.map((name) => `\`${name}\``).join(', ');
        throw new TypeError(`\`${method}\` has no parameter \`${parameter.name}\` (it accepts ${known})`);
      }
      if (this.values.has(parameter.name)) throw new TypeError(`parameter \`${parameter.name}\` of \`${method}\` is given twice`);
      this.values.set(parameter.name, decodeParameterValue(parameter.value));
    }
  }

  /** Present and not null. */
  has(name: string): boolean {
    const value = this.values.get(name);
    return value !== undefined && value !== null;
  }

  /** Any value, null included; undefined when absent. */
  raw(name: string): { present: boolean; value: unknown } {
    return { present: this.values.has(name), value: this.values.get(name) ?? null };
  }

  string(name: string, fallback?: string): string {
    if (!this.has(name)) return this.fallback(name, fallback);
    const value = this.values.get(name);
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    throw new TypeError(`parameter \`${name}\` of \`${this.method}\` must be a string`);
  }

  /** A number; numeric strings are numbers too, as in the language (policy-language.md §4). */
  number(name: string, fallback?: number): number {
    if (!this.has(name)) return this.fallback(name, fallback);
    const value = this.values.get(name);
    const number = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : Number.NaN;
    if (!Number.isFinite(number)) throw new TypeError(`parameter \`${name}\` of \`${this.method}\` must be a number`);
    return number;
  }

  integer(name: string, fallback?: number): number {
    const number = this.number(name, fallback);
    if (!Number.isSafeInteger(number)) throw new TypeError(`parameter \`${name}\` of \`${this.method}\` must be an integer, got ${number}`);
    return number;
  }

  /** One of `choices` (upper case), compared without regard to case. */
  mode<T extends string>(name: string, choices: readonly T[], fallback: T): T {
    if (!this.has(name)) return fallback;
    const text = this.string(name).toUpperCase();
    const choice = choices.find((candidate) => candidate === text);
    if (choice === undefined) {
      throw new TypeError(`parameter \`${name}\` of \`${this.method}\` must be one of ${choices.map((c) => `\`${c}\``).join(', ')}, got \`${text}\``);
    }
    return choice;
  }

  private fallback<T>(name: string, fallback: T | undefined): T {
    if (fallback === undefined) throw new TypeError(`\`${this.method}\` needs parameter \`${name}\``);
    return fallback;
  }
}
