import type { EngineDecision } from '@custos/policy-engine';
import type { DecisionRecord } from '../../src/decision/log';

/** An engine decision that allowed by a rule and changed nothing; `overrides` replace any of it. */
export const engineDecision = (overrides: Partial<EngineDecision> = {}): EngineDecision => ({
  allowed: true,
  decided: true,
  modifiers: [],
  delayMs: 0,
  executions: [],
  matchedPolicies: [],
  errors: [],
  ...overrides,
});

/** The `n`-th answered decision of `client-1` for acme's `show` at revision 3; `overrides` replace any of it. */
export const decisionRecord = (n: number, overrides: Partial<DecisionRecord> = {}): DecisionRecord => ({
  decisionId: `urn:decision:${n}`,
  requestId: `req-${n}`,
  clientId: 'client-1',
  action: 'urn:action:acme:show',
  solution: 'acme',
  revision: 3,
  decision: engineDecision(),
  latencyUs: 100 + n,
  explain: false,
  ...overrides,
});

/** Resolves once the current pass of the event loop has ended (the work batched per pass has run). */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
