import { readFileSync } from 'node:fs';
import { EXIT_CODES, type ExitCode } from '../../output/exit-codes';
import { formatProblem, type LocatedProblem } from '../../output/located';
import type { Output } from '../../output/streams';
import { unreadable } from '../files';
import { show } from '../testing/compare';
import { readInstant } from '../testing/instant';
import { PolicyCache } from '../testing/load-policies';
import { playEvent, type Scene } from '../testing/play-event';
import { DEFAULT_SETTINGS } from '../testing/read-test-file';
import { outcomeOf } from '../testing/run-test-case';
import { formatExplanation } from '../testing/trace';
import { readEvalContext, readEvalEvent, type EventSource } from './eval-input';

export interface EvalOptions {
  /** Policy files or directories. */
  policies: readonly string[];
  /** `--event <file>` (`-`: standard input), or null for `--action` and `--param`. */
  eventFile: string | null;
  action: string | null;
  params: readonly string[];
  /** `--at`: ms since the epoch or an ISO 8601 time; null: now. */
  at: string | null;
  context: string | null;
  format: 'text' | 'json';
}

/**
 * `custos eval`: decides one event against policy files offline, with the test runner's engine, stubs, history and
 * clock (the event's timestamp is "now"), and prints the decision and its explanation. Exit 0 when allowed, 1 when
 * inhibited (as `decide`), 2 for unreadable or invalid input.
 */
export async function runEval(options: EvalOptions, output: Output, readStdin: () => string): Promise<ExitCode> {
  const fail = (found: readonly LocatedProblem[]) => {
    for (const problem of found) output.err(formatProblem(problem));
    return EXIT_CODES.usage;
  };

  const at = timeOf(options.at);
  if (at === null) return fail([{ file: '--at', message: `\`${options.at ?? ''}\` is neither milliseconds since the epoch nor an ISO 8601 time` }]);
  const source = eventSource(options, readStdin);
  if ('problem' in source) return fail([source.problem]);
  const event = readEvalEvent(source, at);
  if (!event.ok) return fail(event.problems);

  // Without a context: the pdp's defaults, no stubs (a pip takes its default), an empty history.
  let scene: Omit<Scene, 'event'> = { settings: DEFAULT_SETTINGS, pips: [], pxps: [], history: [] };
  if (options.context !== null) {
    const text = readText(options.context, readStdin);
    if (typeof text !== 'string') return fail([text]);
    const context = readEvalContext(options.context, text, event.value);
    if (!context.ok) return fail(context.problems);
    scene = context.value;
  }

  const policies = new PolicyCache().setFor({ file: '<command line>', policies: options.policies.map((written) => ({ path: written, written })) });
  if (!policies.ok) return fail(policies.problems);
  const recorded = new Set(policies.policies.flatMap((loaded) => loaded.policy.historyActions));
  const played = await playEvent({ ...scene, event: event.value }, policies.set, recorded);
  const actual = outcomeOf(played.decision, played.calls);

  if (options.format === 'json') {
    const answer = {
      eventAllowed: actual.allowed,
      modifiers: actual.modifiers,
      delay: actual.delay,
      decided: played.decision.decided,
      executes: actual.executes,
      errors: actual.errors,
      explanation: played.explanation,
    };
    output.out(`${JSON.stringify(answer, null, 2)}\n`);
  } else {
    const lines = [
      `decision: ${actual.allowed ? 'allowed' : 'inhibited'}${played.decision.decided ? '' : ' (no mechanism decided: the default decision)'}`,
      `delay: ${actual.delay} ms, modifiers: ${actual.modifiers.length === 0 ? 'none' : actual.modifiers.length}`,
      ...actual.modifiers.map((modifier) => `  ${show(modifier)}`),
      ...actual.executes.map((call) => `execute \`${call.action}\` ${show(call.parameters)}${call.planned ? '' : ' (in a condition)'}`),
      ...actual.errors.map((error) => `mechanism error: ${error}`),
      'explanation:',
      ...formatExplanation(played.explanation).map((line) => `  ${line}`),
    ];
    for (const line of lines) output.out(line);
  }
  return actual.allowed ? EXIT_CODES.ok : EXIT_CODES.failed;
}

function eventSource(options: EvalOptions, readStdin: () => string): EventSource | { problem: LocatedProblem } {
  if (options.eventFile !== null && options.action !== null) return { problem: { file: '--event', message: 'give the event as a file or with `--action`, not both' } };
  if (options.eventFile === null && options.action === null) return { problem: { file: 'eval', message: 'needs the event: `--event <file>` (`-` for standard input) or `--action <action>`' } };
  if (options.eventFile === null && options.action !== null) return { kind: 'flags', action: options.action, params: options.params };
  const file = options.eventFile ?? '-';
  if (options.params.length > 0) return { problem: { file: '--param', message: 'goes with `--action`; an event file carries its own parameters' } };
  const text = readText(file, readStdin);
  return typeof text === 'string' ? { kind: 'text', file: file === '-' ? '<stdin>' : file, text } : { problem: text };
}

function readText(file: string, readStdin: () => string): string | LocatedProblem {
  try {
    return file === '-' ? readStdin() : readFileSync(file, 'utf8');
  } catch (error) {
    return { file, message: unreadable(error) };
  }
}

function timeOf(text: string | null): number | null {
  return text === null ? Date.now() : readInstant(text);
}
