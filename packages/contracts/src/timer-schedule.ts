import { Type, type Static } from '@sinclair/typebox';
import { timerIdSchema } from './policy';

/** How many fire times pap's `GET /ws/timer/{id}/schedule` lists. */
export const TIMER_SCHEDULE_COUNT = 5;

/**
 * When a timer fires next, as pap's `GET /ws/timer/{id}/schedule` answers (api.md, "Timers"): the engine's
 * `nextFireTime` on the wall clock of `POLICY_TIMEZONE`, from now on.
 */
export const timerScheduleSchema = Type.Object({
  id: timerIdSchema,
  cron: Type.String({ description: 'quartz cron expression, seconds first, as written' }),
  timeZone: Type.String({ description: 'the IANA zone the cron is read in (`POLICY_TIMEZONE`)', examples: ['UTC'] }),
  nextFireTimes: Type.Array(Type.String({ format: 'date-time' }), {
    maxItems: TIMER_SCHEDULE_COUNT,
    description: `the next ${TIMER_SCHEDULE_COUNT} fire times after now, as instants; fewer, or none, when the timer stops firing`,
  }),
});
export type TimerSchedule = Static<typeof timerScheduleSchema>;
