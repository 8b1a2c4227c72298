import { CronExpressionParser } from 'cron-parser';
import { loadTimer, type Diagnostic, type TimerDocument } from '@custos/policy-engine';
import { invalidDocument } from './invalid-document';
import type { TimerRecord } from '../store/timers';

/** Timer bodies up to 5 MiB, as policies (the hardened reader refuses anything larger anyway). */
export const TIMER_BODY_LIMIT = 5 * 1024 * 1024;

/**
 * The full check of a quartz schedule the engine's reader translated: cron-parser must read it and find a next
 * tick (`0 0 0 30 2 ?` never fires). A diagnostic located at the `cron` attribute, or null.
 */
export function cronDiagnostic(timer: TimerDocument): Diagnostic | null {
  let problem: string;
  try {
    const next = CronExpressionParser.parse(timer.schedule, { tz: 'UTC', currentDate: new Date() }).next();
    if (Number.isFinite(next.getTime())) return null;
    problem = 'it never fires';
  } catch (error) {
    problem = (error instanceof Error ? error.message : String(error)).replace(/\.$/, '');
    problem = problem.charAt(0).toLowerCase() + problem.slice(1);
  }
  return {
    code: 'invalid_attribute',
    message: `attribute \`cron\`: \`${timer.cron.slice(0, 60)}\` is not a valid schedule: ${problem}`,
    ...timer.cronLocation,
  };
}

/**
 * Validates a timer document completely (hardened XML, structure, URNs, solution rule, quartz cron); any problem is
 * a 400 `invalid_policy` listing every problem with its location, as for policies.
 */
export function validateTimer(xml: string): TimerDocument {
  const outcome = loadTimer(xml);
  const diagnostics = outcome.ok ? [cronDiagnostic(outcome.timer)].filter((d): d is Diagnostic => d !== null) : outcome.diagnostics;
  if (outcome.ok && diagnostics.length === 0) return outcome.timer;
  throw invalidDocument('timer', diagnostics);
}

export const toTimerRecord = (timer: TimerDocument, xml: string): TimerRecord => ({
  id: timer.id,
  solution: timer.solution,
  description: timer.description,
  cron: timer.cron,
  xml,
});
