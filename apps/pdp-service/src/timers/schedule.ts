import { loadTimer, type TimerDocument } from '@custos/policy-engine';

export type TimerCompileOutcome = { ok: true; timer: TimerDocument } | { ok: false; problems: string[] };

/**
 * Reads a deployed timer document with the engine, which checks its schedule completely; never throws. A timer whose
 * fire times are all past still reads: the scheduler then has nothing to schedule.
 */
export function compileTimer(xml: string): TimerCompileOutcome {
  const outcome = loadTimer(xml);
  if (!outcome.ok) return { ok: false, problems: outcome.diagnostics.map((d) => `${d.line ?? '?'}:${d.column ?? '?'} ${d.code}: ${d.message}`) };
  return { ok: true, timer: outcome.timer };
}
