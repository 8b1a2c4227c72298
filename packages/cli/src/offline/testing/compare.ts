import { isDeepStrictEqual } from 'node:util';
import type { EventParameter, Modifier } from '@custos/contracts';
import type { ActualOutcome, ExpectedExecute, ExpectedModifier, Expectation } from './test-file';

/** One way the decision differs from the expectation, at a path of the expectation. */
export interface Difference {
  /** `expect.modifiers[0].engine[0].parameters[suffix].value.value` */
  path: string;
  message: string;
}

/**
 * Compares what a test expects with what the engine decided. `allowed` and `delay` must be equal. `modifiers`, when
 * given, must be as many as decided and each one a subset of the decided modifier at its position (parts left out
 * are not compared; parameters are found by name). `executes`, when given, must each have been called (planned by
 * the decision or called inside a condition) with at least the parameters given; an empty list means no call at all.
 */
export function compareOutcome(expectation: Expectation, actual: ActualOutcome): Difference[] {
  const differences: Difference[] = [];
  if (expectation.allowed !== actual.allowed) {
    differences.push({ path: 'expect.allowed', message: `expected ${expectation.allowed}, got ${actual.allowed}` });
  }
  if (expectation.delay !== undefined && expectation.delay !== actual.delay) {
    differences.push({ path: 'expect.delay', message: `expected ${expectation.delay}, got ${actual.delay}` });
  }
  if (expectation.modifiers !== undefined) compareModifiers(expectation.modifiers, actual.modifiers, differences);
  if (expectation.executes !== undefined) compareExecutes(expectation.executes, actual.executes, differences);
  return differences;
}

function compareModifiers(expected: readonly ExpectedModifier[], actual: readonly Modifier[], differences: Difference[]): void {
  if (expected.length !== actual.length) {
    differences.push({
      path: 'expect.modifiers',
      message: `expected ${count(expected.length, 'modifier')}, got ${actual.length}: ${actual.map((m) => `\`${m.name}\` ${m.engine[0].method}`).join(', ') || 'none'}`,
    });
  }
  expected.forEach((want, index) => {
    const got = actual[index];
    const at = `expect.modifiers[${index}]`;
    if (got === undefined) return;
    if (want.name !== got.name) differences.push({ path: `${at}.name`, message: `expected ${show(want.name)}, got ${show(got.name)}` });
    if (want.expression !== undefined && want.expression !== got.expression) {
      differences.push({ path: `${at}.expression`, message: `expected ${show(want.expression)}, got ${show(got.expression)}` });
    }
    const wantEngine = want.engine?.[0];
    const gotEngine = got.engine[0];
    if (wantEngine === undefined) return;
    if (wantEngine.method !== undefined && wantEngine.method !== gotEngine.method) {
      differences.push({ path: `${at}.engine[0].method`, message: `expected ${show(wantEngine.method)}, got ${show(gotEngine.method)}` });
    }
    for (const parameter of wantEngine.parameters ?? []) {
      const where = `${at}.engine[0].parameters[${parameter.name}]`;
      const found = gotEngine.parameters.find((candidate) => candidate.name === parameter.name);
      if (found === undefined) {
        differences.push({ path: where, message: `expected a parameter \`${parameter.name}\`, got ${names(gotEngine.parameters)}` });
        continue;
      }
      for (const key of ['value', 'type', 'isComplex'] as const) {
        if (!(key in parameter.value)) continue;
        if (!isDeepStrictEqual(parameter.value[key], found.value[key])) {
          differences.push({ path: `${where}.value.${key}`, message: `expected ${show(parameter.value[key])}, got ${show(found.value[key])}` });
        }
      }
    }
  });
}

function compareExecutes(expected: readonly ExpectedExecute[], actual: ActualOutcome['executes'], differences: Difference[]): void {
  const calls = actual.map((call) => `\`${call.action}\`${call.planned ? '' : ' (in a condition)'}`).join(', ') || 'none';
  if (expected.length === 0 && actual.length > 0) {
    differences.push({ path: 'expect.executes', message: `expected no execute, got ${calls}` });
    return;
  }
  expected.forEach((want, index) => {
    const ofAction = actual.filter((call) => call.action === want.action);
    const matching = ofAction.filter((call) => want.parameters === null || subsetOf(want.parameters, call.parameters));
    if (matching.length > 0) return;
    const path = `expect.executes[${index}]`;
    if (ofAction.length === 0) differences.push({ path, message: `expected a call of \`${want.action}\`, got ${calls}` });
    else {
      differences.push({
        path: `${path}.parameters`,
        message: `expected \`${want.action}\` with ${show(want.parameters)}, got ${ofAction.map((call) => show(call.parameters)).join(', ')}`,
      });
    }
  });
}

function subsetOf(wanted: Record<string, unknown>, given: Record<string, unknown>): boolean {
  return Object.entries(wanted).every(([name, value]) => name in given && isDeepStrictEqual(value, given[name]));
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

const names = (parameters: readonly EventParameter[]) =>
  parameters.length === 0 ? 'none' : parameters.map((parameter) => `\`${parameter.name}\``).join(', ');

/** A value in a message: JSON, short. */
export function show(value: unknown): string {
  const text = JSON.stringify(value) ?? 'nothing';
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}
