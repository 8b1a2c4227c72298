import { infoLineWriter, type InfoLineWriter, type Logger } from '@custos/service-kit';
import type { EngineDecision } from '@custos/policy-engine';
import { isPlainJson, jsonNumber, jsonString, jsonStrings, lastJsonString } from './json-text';

export interface DecisionRecord {
  decisionId: string;
  requestId: string;
  clientId: string;
  action: string;
  solution: string;
  revision: number;
  decision: EngineDecision;
  latencyUs: number;
  explain: boolean;
}

/**
 * The logger for decision lines: the service's logger with `log: "decision"`. Lines are written by
 * logDecision, field by field, so no secret can reach them and pino's redaction is not needed.
 */
export function createDecisionLogger(logger: Logger): Logger {
  return logger.child({ log: 'decision' });
}

/**
 * Messages follow the convention of quoting user values in backticks; the log must never hold
 * parameter values, so quoted parts are blanked.
 */
export const withoutValues = (message: string): string => message.replace(/`[^`]*`/g, '`…`');

/** The line writer of each decision logger, made at its first line (what it looks up never changes). */
const writers = new WeakMap<Logger, InfoLineWriter>();

/**
 * One line per decision, written after the response (api.md §3: the key of the decision log is
 * the decision id). Parameter values never appear. The fields are written as JSON text directly, in a
 * fixed order, and the line in the logger's format (service-kit's infoLineWriter); the write itself happens on the
 * log's writer thread. POST /event gathers its lines and writes them together (answered.ts).
 */
export function logDecision(logger: Logger, record: DecisionRecord): void {
  if (!logger.isLevelEnabled('info')) return;
  let write = writers.get(logger);
  if (write === undefined) {
    write = infoLineWriter(logger);
    writers.set(logger, write);
  }
  write(DECISION_MSG, decisionMembers(record));
}

/** The `msg` of a decision line. */
export const DECISION_MSG = 'decision';

// The fields that repeat from line to line, each with its last text (see lastJsonString).
const clientText = lastJsonString();
const actionText = lastJsonString();
const solutionText = lastJsonString();
const policyText = lastJsonString();
let lastRevision = Number.NaN;
let lastRevisionText = 'null';

/** `matchedPolicies`: nearly always one policy, most often the one of the line before. */
const matchedText = (policies: readonly string[]): string => (policies.length === 1 ? `[${policyText(policies[0] as string)}]` : jsonStrings(policies));

/** The fields of a decision line as JSON text (the members of its object, without the braces). */
export function decisionMembers(record: DecisionRecord): string {
  const { decision } = record;
  const errors =
    decision.errors.length === 0
      ? '[]'
      : JSON.stringify(decision.errors.map((e) => ({ policyId: e.policyId, mechanism: e.mechanism, message: withoutValues(e.message) })));
  const executions =
    record.explain || decision.executions.length === 0
      ? '[]'
      : JSON.stringify(decision.executions.map((e) => ({ policyId: e.policyId, action: e.action })));
  // Where the default decided: whose default it was (a solution's settings, or the pdp's own).
  const defaultSource = decision.defaultSource === undefined ? '' : `"defaultSource":${jsonString(decision.defaultSource)},`;
  // The request id is most often the decision id's UUID (the client sent none): a tail of a plain string is plain, so
  // it needs no check of its own.
  const { decisionId, requestId } = record;
  const plainDecision = isPlainJson(decisionId);
  const decisionText = plainDecision ? `"${decisionId}"` : JSON.stringify(decisionId);
  const requestText = plainDecision && decisionId.endsWith(requestId) ? `"${requestId}"` : jsonString(requestId);
  if (record.revision !== lastRevision) {
    lastRevision = record.revision;
    lastRevisionText = jsonNumber(record.revision);
  }
  return (
    `"decisionId":${decisionText},"requestId":${requestText},` +
    `"clientId":${clientText(record.clientId)},"action":${actionText(record.action)},"solution":${solutionText(record.solution)},` +
    `"revision":${lastRevisionText},"explain":${record.explain},"matchedPolicies":${matchedText(decision.matchedPolicies)},` +
    `"allowed":${decision.allowed},"decided":${decision.decided},${defaultSource}"modifiers":${decision.modifiers.length},` +
    `"delayMs":${jsonNumber(decision.delayMs)},"latencyUs":${jsonNumber(record.latencyUs)},"errors":${errors},` +
    `"plannedExecutions":${record.explain ? 0 : decision.executions.length},"executions":${executions}`
  );
}
