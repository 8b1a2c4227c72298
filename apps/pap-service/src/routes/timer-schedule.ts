import { SCOPES, TIMER_SCHEDULE_COUNT, timerScheduleSchema, type TimerSchedule } from '@custos/contracts';
import { loadTimer, nextFireTime } from '@custos/policy-engine';
import { jsonResponse, problems } from '@custos/service-kit';
import { TIMER_KIND } from '../documents/timer-kind';
import { documentIdParam, papRoute } from './context';
import { badId, common, problem } from './responses';

/** The next `count` fire times after `now`, as the pdps schedule them (fewer when the timer stops firing). */
function nextFireTimes(schedule: Parameters<typeof nextFireTime>[0], now: Date, timeZone: string, count: number): Date[] {
  const times: Date[] = [];
  let after = now;
  while (times.length < count) {
    const next = nextFireTime(schedule, after, timeZone);
    if (next === null) break;
    times.push(next);
    after = next;
  }
  return times;
}

/**
 * `GET /ws/timer/{id}/schedule`: when a timer fires next, for people who read a cron badly (the console's timer
 * list). The stored XML was valid when stored, so it reads again; the zone is pap's `POLICY_TIMEZONE`, which must be
 * the pdps' for the times to be theirs.
 */
export const timerScheduleRoute = papRoute({
  method: 'get',
  path: '/ws/timer/{id}/schedule',
  summary: 'when a timer fires next',
  description: `The timer's cron, the zone it is read in (\`POLICY_TIMEZONE\`) and its next ${TIMER_SCHEDULE_COUNT} fire times after now, whether or not it is deployed.`,
  scope: SCOPES.policyRead,
  params: { id: documentIdParam('timer', SCOPES.policyRead) },
  responses: {
    200: jsonResponse('the cron, its zone and the next fire times', timerScheduleSchema),
    400: badId,
    404: problem('no such timer'),
    ...common,
  },
  handler: async (_req, res, { deps, params }) => {
    const { id } = params.id;
    const row = await deps.storeOf(TIMER_KIND).find(id);
    if (!row) throw problems.notFound(`no timer \`${id}\``);
    const outcome = loadTimer(row.xml);
    // Stored timers passed the same reading; one that no longer reads is a bug, not the caller's problem.
    if (!outcome.ok) throw new Error(`stored timer \`${id}\` no longer reads: ${outcome.diagnostics[0]?.message ?? 'unknown problem'}`);
    const times = nextFireTimes(outcome.timer, new Date(), deps.timeZone, TIMER_SCHEDULE_COUNT);
    const answer: TimerSchedule = { id: { identifier: id }, cron: row.cron, timeZone: deps.timeZone, nextFireTimes: times.map((t) => t.toISOString()) };
    res.setHeader('Cache-Control', 'no-store');
    res.json(answer);
  },
});
