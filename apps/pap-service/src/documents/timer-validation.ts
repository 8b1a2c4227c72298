import { loadTimer } from '@custos/policy-engine';
import type { DocumentRecord } from '../store/documents';
import { cronDiagnostic } from './cron-check';
import { invalidDocument } from './invalid-document';
import type { TimerMetadata } from './timer-kind';

/**
 * Validates a timer document completely (hardened XML, structure, URNs, solution rule, quartz cron); any problem is
 * a 400 `invalid_policy` listing every problem with its location, as for policies.
 */
export function validateTimer(xml: string): DocumentRecord<TimerMetadata> {
  const outcome = loadTimer(xml);
  if (!outcome.ok) throw invalidDocument('timer', outcome.diagnostics);
  const schedule = cronDiagnostic(outcome.timer);
  if (schedule !== null) throw invalidDocument('timer', [schedule]);
  const { id, solution, description, cron } = outcome.timer;
  return { id, solution, description, cron, xml };
}
