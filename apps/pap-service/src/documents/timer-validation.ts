import { loadTimer, timerScheduleDiagnostic } from '@custos/policy-engine';
import type { DocumentRecord } from '../store/documents';
import { invalidDocument } from './invalid-document';
import type { TimerMetadata } from './timer-kind';

/**
 * Validates a timer document completely (hardened XML, structure, URNs, solution rule, quartz cron that still fires); any problem is
 * a 400 `invalid_policy` listing every problem with its location, as for policies.
 */
export function validateTimer(xml: string): DocumentRecord<TimerMetadata> {
  const outcome = loadTimer(xml);
  if (!outcome.ok) throw invalidDocument('timer', outcome.diagnostics);
  const schedule = timerScheduleDiagnostic(outcome.timer, new Date());
  if (schedule !== null) throw invalidDocument('timer', [schedule]);
  const { id, solution, description, cron } = outcome.timer;
  return { id, solution, description, cron, xml };
}
