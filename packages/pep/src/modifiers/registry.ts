import type { ModifierMethod } from './method';
import { addMethod, divideMethod, multiplyMethod, roundMethod, signMethod } from './numbers';
import { anagramMethod, appendMethod, passwordMethod, replaceSubstringMethod, shortenMethod, substringMethod } from './text';
import { deleteMethod, hashMethod, replaceMethod } from './values';

/** The methods of policy-language.md §7 by name; a Map, so `constructor` or `__proto__` are simply unknown. */
export const MODIFIER_METHODS: ReadonlyMap<string, ModifierMethod> = new Map([
  ['delete', deleteMethod],
  ['replace', replaceMethod],
  ['append', appendMethod],
  ['hash', hashMethod],
  ['anagram', anagramMethod],
  ['password', passwordMethod],
  ['replaceSubstring', replaceSubstringMethod],
  ['shorten', shortenMethod],
  ['substring', substringMethod],
  ['add', addMethod],
  ['multiply', multiplyMethod],
  ['divide', divideMethod],
  ['round', roundMethod],
  ['sign', signMethod],
]);

/** The names of the methods this SDK can carry out. */
export const SUPPORTED_MODIFIER_METHODS: readonly string[] = Object.freeze([...MODIFIER_METHODS.keys()]);
