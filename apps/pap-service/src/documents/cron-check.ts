import { CronExpressionParser } from 'cron-parser';
import type { Diagnostic, TimerDocument } from '@custos/policy-engine';

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
