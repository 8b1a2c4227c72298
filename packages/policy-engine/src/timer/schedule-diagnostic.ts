import type { Diagnostic } from '../api';
import { diagnostic, excerpt } from '../diagnostics';
import { nextFireTime } from './fire-times';
import type { TimerDocument } from './read-timer';

/**
 * The registration check of a timer `loadTimer` accepted: null when it fires after `now`, else an `invalid_attribute`
 * diagnostic at its `cron` attribute (a one-shot schedule whose time has passed, a year field whose years are over).
 * `loadTimer` itself does not ask: a deployed timer stays readable after its last fire time.
 */
export function timerScheduleDiagnostic(timer: TimerDocument, now: Date, timeZone = 'UTC'): Diagnostic | null {
  if (nextFireTime(timer, now, timeZone) !== null) return null;
  return diagnostic(
    'invalid_attribute',
    `attribute \`cron\`: \`${excerpt(timer.cron, 60)}\` never fires again: it has no fire time after ${now.toISOString()}`,
    timer.cronLocation,
  );
}
