import { wireParameters, type Event } from '@custos/contracts';
import { nextFireTime, type MechanismExplanation, type PolicySet, type TimerDocument } from '@custos/policy-engine';
import { compareOutcome, show, type Difference } from './compare';
import { playEvents } from './play-event';
import { outcomeOf, stubsOf } from './run-test-case';
import type { ActualOutcome, TestFile, TickCase } from './test-file';

/** What a tick test found: whether the timer fires at the instant (else when next), and the decision on each event it fires. */
export interface TickOutcome {
  tick: { timer: string; at: number; fires: boolean; next: number | null };
  /** Each fired event with the decision on it and its explanation. */
  fired: Array<{ event: Event; actual: ActualOutcome; explanation: MechanismExplanation[] }>;
  differences: Difference[];
  /** The explanations of every fired event, in order, for `--verbose` and coverage. */
  explanation: MechanismExplanation[];
}

/**
 * Plays a tick as the pdp's scheduler fires one: when the timer fires at the instant (in `settings.timeZone`, the
 * pdp's POLICY_TIMEZONE), each of its events, with its constant parameters and the instant as its timestamp, is
 * recorded and decided in turn after the test's history, with the test's stubs. `allowed`, `delay` and `modifiers`
 * of the expectation are compared with the decision on every fired event; `executes` with the calls of them all.
 */
export async function runTickCase(file: TestFile, test: TickCase, timer: TimerDocument, set: PolicySet, recordedActions: ReadonlySet<string>): Promise<TickOutcome> {
  const { at } = test.tick;
  const schedule = timer.years === undefined ? { schedule: timer.schedule } : { schedule: timer.schedule, years: timer.years };
  const fires = nextFireTime(schedule, new Date(at - 1), file.settings.timeZone)?.getTime() === at;
  const next = fires ? null : (nextFireTime(schedule, new Date(at), file.settings.timeZone)?.getTime() ?? null);
  const tick = { timer: timer.id, at, fires, next };
  const differences: Difference[] = [];
  if (fires !== test.expect.fires) {
    const message = fires
      ? `expected the timer not to fire at ${iso(at)}, it fires`
      : `expected the timer to fire at ${iso(at)}, it does not (${next === null ? 'it never fires again' : `next at ${iso(next)}`})`;
    differences.push({ path: 'expect.fires', message });
  }
  if (!fires) return { tick, fired: [], differences, explanation: [] };

  const events: Event[] = timer.events.map((fired) => ({ actionId: { urn: fired.action }, timestamp: at, parameters: wireParameters(fired.parameters) }));
  const played = await playEvents({ settings: file.settings, ...stubsOf(file, test), history: test.history }, events, set, recordedActions);
  const fired = played.map((one, index) => ({ event: events[index] as Event, actual: outcomeOf(one.decision, one.calls), explanation: one.explanation }));
  const expectation = test.expect.each;
  if (expectation !== undefined) {
    // `allowed`, `delay` and `modifiers` hold for each fired event; `executes` for the tick: the calls of all its events.
    const { executes, ...each } = expectation;
    for (const [index, one] of fired.entries()) {
      const action = timer.events[index]?.action ?? '';
      for (const difference of compareOutcome(each, one.actual)) differences.push({ ...difference, message: `\`${action}\`: ${difference.message}` });
    }
    if (executes !== undefined) {
      const calls = fired.flatMap((one) => one.actual.executes);
      differences.push(...compareOutcome({ allowed: true, executes }, { allowed: true, modifiers: [], delay: 0, executes: calls, errors: [] }));
    }
  }
  return { tick, fired, differences, explanation: played.flatMap((one) => one.explanation) };
}

/** What the tick did, shown under the test's line whether it passed or not. */
export function tickLines(outcome: TickOutcome): string[] {
  const { tick } = outcome;
  if (!tick.fires) return [`\`${tick.timer}\` does not fire at ${iso(tick.at)}; ${tick.next === null ? 'it never fires again' : `next at ${iso(tick.next)}`}`];
  return [
    `\`${tick.timer}\` fires at ${iso(tick.at)}:`,
    ...outcome.fired.map(({ event, actual }) => {
      const action = 'urn' in event.actionId ? event.actionId.urn : `${event.actionId.scope}:${event.actionId.action}`;
      const parameters = Object.fromEntries((event.parameters ?? []).map((parameter) => [parameter.name, parameter.value.value]));
      const executes = actual.executes.map((call) => ` execute \`${call.action}\` ${show(call.parameters)}`).join(',');
      return `  \`${action}\` ${show(parameters)}: ${actual.allowed ? 'allowed' : 'inhibited'}${executes === '' ? '' : `,${executes}`}`;
    }),
  ];
}

const iso = (ms: number) => new Date(ms).toISOString();
