import { javaValue, type RecordedParameter, type RecordParameters } from '@custos/contracts';
import type { EngineEvent } from '@custos/policy-engine';
import { decisionMembers, type DecisionRecord } from '../decision/log';
import { jsonString } from '../decision/json-text';

/** What a record needs besides the decision: who decided, and what each solution lets its records carry. */
export interface RecordEncoding {
  replicaId: string;
  /** The solution's `recordParameters` setting; undefined: its records carry no parameter. */
  parametersOf(solution: string): RecordParameters | undefined;
  /** The keyed hash of a parameter's value (the history's key: HMAC with the pdp's history secret). */
  hash(name: string, value: unknown): string;
}

/**
 * A decision record as the JSON text published: the members of the decision log line (log.ts, so a record carries
 * exactly what the line does), the replica and the time, and — only when the solution opted in — the parameters its
 * setting lets through: listed ones with their values, the others hashed when asked for, else left out.
 */
export function recordJson(record: DecisionRecord, event: EngineEvent | undefined, at: number, encoding: RecordEncoding): string {
  let text = `{${decisionMembers(record)},"replicaId":${jsonString(encoding.replicaId)},"time":"${new Date(at).toISOString()}"`;
  const setting = event === undefined ? undefined : encoding.parametersOf(record.solution);
  if (event !== undefined && setting !== undefined) {
    const { parameters, complete } = recordedParameters(event, setting, encoding);
    text += `,"eventTimestamp":${event.timestamp},"parameters":${JSON.stringify(parameters)},"complete":${complete}`;
  }
  return `${text}}`;
}

/** The parameters a setting lets through, and whether that is every parameter with its value. */
export function recordedParameters(
  event: EngineEvent,
  setting: RecordParameters,
  encoding: Pick<RecordEncoding, 'hash'>,
): { parameters: RecordedParameter[]; complete: boolean } {
  const clear = new Set(setting.clear ?? []);
  const all = clear.has('*');
  const parameters: RecordedParameter[] = [];
  let complete = true;
  for (const [name, value] of event.parameters) {
    if (all || clear.has(name)) {
      parameters.push({ name, value: javaValue(value) });
      continue;
    }
    complete = false;
    if (setting.hashed === true) parameters.push({ name, hash: encoding.hash(name, value) });
  }
  return { parameters, complete };
}
