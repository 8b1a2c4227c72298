import { CronExpressionParser } from 'cron-parser';
import { loadTimer, type TimerDocument } from '@custos/policy-engine';

/** A timer id is `urn:timer:…`; every other deployed id is a policy (contracts/nats.ts). */
export const isTimerId = (id: string): boolean => id.startsWith('urn:timer:');

export type TimerCompileOutcome = { ok: true; timer: TimerDocument } | { ok: false; problems: string[] };

/** Reads a deployed timer document and checks its schedule as pap did; never throws. */
export function compileTimer(xml: string): TimerCompileOutcome {
  const outcome = loadTimer(xml);
  if (!outcome.ok) return { ok: false, problems: outcome.diagnostics.map((d) => `${d.line ?? '?'}:${d.column ?? '?'} ${d.code}: ${d.message}`) };
  const next = nextTick(outcome.timer, Date.now(), 'UTC');
  if (typeof next === 'string') return { ok: false, problems: [`cron \`${outcome.timer.cron}\`: ${next}`] };
  return { ok: true, timer: outcome.timer };
}

/**
 * The first tick strictly after `after` (ms), in `timeZone` (POLICY_TIMEZONE: quartz schedules are wall-clock
 * times); a string says why there is none.
 */
export function nextTick(timer: Pick<TimerDocument, 'schedule'>, after: number, timeZone: string): number | string {
  try {
    const next = CronExpressionParser.parse(timer.schedule, { tz: timeZone, currentDate: new Date(after) }).next().getTime();
    return Number.isFinite(next) ? next : 'it never fires';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
