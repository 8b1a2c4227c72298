import type { CompiledPolicy, Diagnostic, EngineEvent } from '../../src';
import type { EvaluationContext } from '../../src/functions/evaluation';
import { loadPolicy } from '../../src';

export const NS = {
  language: 'http://www.mydata-control.de/4.0/mydataLanguage',
  constant: 'http://www.mydata-control.de/4.0/constant',
  event: 'http://www.mydata-control.de/4.0/event',
  parameter: 'http://www.mydata-control.de/4.0/parameter',
  pip: 'http://www.mydata-control.de/4.0/pip',
  variable: 'http://www.mydata-control.de/4.0/variable',
  variableDeclaration: 'http://www.mydata-control.de/4.0/variableDeclaration',
  valueChanged: 'http://www.mydata-control.de/4.0/valueChanged',
} as const;

/** The namespace declarations editors put on every 4.0 policy, with the conventional prefixes. */
export const DECLARATIONS = Object.entries(NS)
  .map(([prefix, uri]) => (prefix === 'language' ? `xmlns="${uri}"` : `xmlns:${prefix}="${uri}"`))
  .join(' ');

/** A 4.0 policy document around `body` (the mechanisms), on the first line so body lines start at line 2. */
export function policyXml(body: string, id = 'urn:policy:acme:test'): string {
  return `<policy id="${id}" ${DECLARATIONS}>\n${body}\n</policy>`;
}

/** One mechanism for `urn:action:acme:act` with the given `if` condition and branches. */
export function mechanismXml(inner: string, event = 'urn:action:acme:act'): string {
  return `<mechanism event="${event}">${inner}</mechanism>`;
}

export function mustLoad(xml: string): CompiledPolicy {
  const outcome = loadPolicy(xml);
  if (!outcome.ok) throw new Error(`expected the policy to load, got ${JSON.stringify(outcome.diagnostics, null, 2)}`);
  return outcome.policy;
}

export function mustFail(xml: string): Diagnostic[] {
  const outcome = loadPolicy(xml);
  if (outcome.ok) throw new Error('expected the policy to be refused, it loaded');
  return outcome.diagnostics;
}

export function codes(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((item) => item.code);
}

export function event(parameters: Record<string, unknown> = {}, action = 'urn:action:acme:act', timestamp = 0): EngineEvent {
  return { action, timestamp, parameters: new Map(Object.entries(parameters)) };
}

export const OPTIONS = { defaultDecision: 'allow', timeZone: 'UTC' } as const;

/** A context for calling compiled closures directly, as `decide` would build it for one mechanism. */
export function contextFor(engineEvent: EngineEvent, timeZone = 'UTC'): EvaluationContext {
  return {
    event: engineEvent,
    timeZone,
    request: { ports: undefined, explain: false, variables: null, pipAnswers: null, now: undefined },
    trace: null,
  };
}
