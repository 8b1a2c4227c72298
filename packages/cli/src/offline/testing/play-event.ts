import type { Event } from '@custos/contracts';
import { createMemoryHistory, decide, type DecideOptions, type EngineDecision, type EvaluationPorts, type MechanismExplanation, type PolicySet } from '@custos/policy-engine';
import { stubPip, stubPxp, type PxpCall } from './stubs';
import type { PipStub, PxpStub, TestSettings } from './test-file';
import { engineEventOf } from './wire-event';

/** One event with its scene: the settings, stubs and earlier events it is decided with. */
export interface Scene {
  settings: TestSettings;
  pips: readonly PipStub[];
  pxps: readonly PxpStub[];
  history: readonly Event[];
  event: Event;
}

export interface Played {
  decision: EngineDecision;
  /** PXP calls made by `execute` inside conditions while deciding. */
  calls: PxpCall[];
  /** The explanation of the event (`/event/explain`), taken on the same state before the decision. */
  explanation: MechanismExplanation[];
}

/** The solution of an action URN (`urn:action:<solution>:<name>`). */
const solutionOf = (action: string): string => action.split(':')[2] ?? '';

/**
 * Plays an event as the pdp would see it: a fresh event history; each `history` event, in time order, is recorded
 * (when some policy counts its action) and decided at its own timestamp, so `valueChanged` state builds up as it
 * would; then the event is recorded and decided at its timestamp, which is the decision's "now". The explanation is
 * taken first, on the same state, since explaining changes nothing. `policy test` and `eval` share it.
 */
export async function playEvent(scene: Scene, set: PolicySet, recordedActions: ReadonlySet<string>): Promise<Played> {
  const [played] = await playEvents(scene, [scene.event], set, recordedActions);
  if (played === undefined) throw new Error('one event played, no decision');
  return played;
}

/**
 * Plays the scene's history, then `events` one after the other on the state it left, each recorded and decided as
 * `playEvent` does: the events a timer fires at one tick, which the pdp decides in turn.
 */
export async function playEvents(scene: Omit<Scene, 'event'>, events: readonly Event[], set: PolicySet, recordedActions: ReadonlySet<string>): Promise<Played[]> {
  const { settings } = scene;
  // As the pdp decides: with the default of the action's solution when its settings have one, else the pdp's.
  const options = (action: string): DecideOptions => ({
    defaultDecision: settings.solutions.get(solutionOf(action))?.defaultDecision ?? settings.defaultDecision,
    timeZone: settings.timeZone,
  });
  const history = createMemoryHistory();
  const pip = stubPip(scene.pips);
  const ports = (now: number, calls: PxpCall[] | null): EvaluationPorts => ({ history, pip, pxp: stubPxp(scene.pxps, calls), clock: { now: () => now } });

  const earlier = [...scene.history].sort((a, b) => a.timestamp - b.timestamp);
  for (const past of earlier) {
    const event = engineEventOf(past);
    if (recordedActions.has(event.action)) history.record(event.action, event.timestamp, event.parameters);
    await decide(set, event, options(event.action), ports(event.timestamp, null));
  }

  const played: Played[] = [];
  for (const wire of events) {
    const event = engineEventOf(wire);
    if (recordedActions.has(event.action)) history.record(event.action, event.timestamp, event.parameters);
    const explained = await decide(set, event, { ...options(event.action), explain: true }, ports(event.timestamp, null));
    const calls: PxpCall[] = [];
    const decision = await decide(set, event, options(event.action), ports(event.timestamp, calls));
    played.push({ decision, calls, explanation: explained.explanation ?? [] });
  }
  return played;
}
