import type { TimerSchedule } from '@custos/contracts';
import { fireTimeText, readCron } from '../logic/timers';

/** How many of pap's next fire times the list shows. */
const SHOWN = 3;

/** A timer's schedule in the list: the cron as written, in words, and when it fires next in the pdps' zone. */
export function TimerScheduleCell({ cron, schedule }: { cron: string; schedule: TimerSchedule | undefined }) {
  const words = readCron(cron);
  return (
    <div class="schedule">
      <code>{cron}</code>
      {words !== '' && <span class="cron-words">{words}</span>}
      {schedule !== undefined &&
        (schedule.nextFireTimes.length === 0 ? (
          <span class="meta">never fires again</span>
        ) : (
          <span class="meta">
            next, in {schedule.timeZone}:{' '}
            {schedule.nextFireTimes.slice(0, SHOWN).map((t, index) => (
              <span key={t}>
                {index > 0 && ', '}
                <time dateTime={t}>{fireTimeText(t, schedule.timeZone)}</time>
              </span>
            ))}
          </span>
        ))}
    </div>
  );
}
