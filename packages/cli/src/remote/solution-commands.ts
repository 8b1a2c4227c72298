import { AUTHZEN_DEFAULTS, DEFAULT_DECISIONS, SOLUTION_PATTERN, type SolutionSettings } from '@custos/contracts';
import type { Command } from 'commander';
import type { RemoteContext } from './context';
import { jsonOf } from './http-client';
import { REMOTE_EXIT, UsageFailure } from './failures';
import { revisionSuffix } from './revision-text';
import { runAction } from './run-action';
import { sessionApi } from './session-api';

/** What an option sets: a value of its list, or `unset` (the setting is removed: the pdp's own applies). */
const UNSET = 'unset';

interface SettingsOptions {
  defaultDecision?: string;
  authzenDefault?: string;
  json?: boolean;
}

/** The pdp setting each solution setting falls back to, for the printout. */
const FALLBACKS: Record<keyof SolutionSettings, string> = { defaultDecision: 'DEFAULT_DECISION', authzenDefault: 'PDP_AUTHZEN_DEFAULT' };

function chosen(option: string, value: string | undefined, allowed: readonly string[]): string | undefined {
  if (value === undefined) return undefined;
  if (value === UNSET || allowed.includes(value)) return value;
  throw new UsageFailure(`${option} must be ${[...allowed, UNSET].map((v) => `\`${v}\``).join(', ')}; got \`${value}\``);
}

/** The options checked: each setting's new value, `unset`, or undefined to keep it. */
function wantedOf(options: SettingsOptions): Array<[keyof SolutionSettings, string | undefined]> {
  return [
    ['defaultDecision', chosen('--default-decision', options.defaultDecision, DEFAULT_DECISIONS)],
    ['authzenDefault', chosen('--authzen-default', options.authzenDefault, AUTHZEN_DEFAULTS)],
  ];
}

/** `current` with the options applied: a value sets, `unset` removes, an option not given keeps. */
function changed(current: SolutionSettings, wanted: ReadonlyArray<[keyof SolutionSettings, string | undefined]>): SolutionSettings {
  const next: Record<string, string> = { ...current };
  for (const [key, value] of wanted) {
    if (value === UNSET) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  return next as SolutionSettings;
}

const settingsLines = (settings: SolutionSettings): string =>
  (Object.keys(FALLBACKS) as Array<keyof SolutionSettings>)
    .map((key) => `${key}: ${settings[key] ?? `not set (the pdp's ${FALLBACKS[key]})`}\n`)
    .join('');

const settingsOf = (answer: unknown): SolutionSettings =>
  typeof answer === 'object' && answer !== null && 'settings' in answer ? ((answer as { settings: SolutionSettings }).settings ?? {}) : {};

/**
 * `custos solution settings <solution>`: prints a solution's settings, or with `--default-decision` /
 * `--authzen-default` changes them (the others kept) and prints the revision they take effect at.
 */
export function registerSolutionCommands(program: Command, context: RemoteContext): void {
  const group = program.command('solution').description("a solution's settings: the default decisions the pdps use for it");
  group
    .command('settings')
    .description("print a solution's settings, or change them with the options (a change is a new policy revision)")
    .argument('<solution>', 'the solution, e.g. acme')
    .option('--default-decision <value>', "allow, inhibit, or unset (the pdp's DEFAULT_DECISION): when no mechanism decides")
    .option('--authzen-default <value>', "deny, allow, or unset (the pdp's PDP_AUTHZEN_DEFAULT): AuthZEN's answer for an action no mechanism reacts to")
    .option('--json', "print pap's answer as JSON")
    .action((solution: string, options: SettingsOptions) =>
      runAction(context, async () => {
        if (!new RegExp(`^${SOLUTION_PATTERN}$`).test(solution)) throw new UsageFailure(`\`${solution}\` is not a solution name`);
        const wanted = wantedOf(options);
        const path = `/ws/solutions/${solution}/settings`;
        const api = await sessionApi(context);
        const current = await api.papJson('GET', path);
        if (wanted.every(([, value]) => value === undefined)) {
          context.out(options.json === true ? `${JSON.stringify(current, null, 2)}\n` : `solution ${solution}\n${settingsLines(settingsOf(current))}`);
          return REMOTE_EXIT.ok;
        }
        const next = changed(settingsOf(current), wanted);
        const answer = await api.pap('PUT', path, { body: JSON.stringify(next), contentType: 'application/json' });
        const body = (jsonOf(answer) ?? {}) as { changed?: boolean; settings?: SolutionSettings };
        if (options.json === true) {
          context.out(`${JSON.stringify(body, null, 2)}\n`);
          return REMOTE_EXIT.ok;
        }
        const verb = body.changed === true ? 'changed' : 'unchanged';
        context.out(`settings of ${solution} ${verb}${revisionSuffix(answer)}\n${settingsLines(body.settings ?? next)}`);
        return REMOTE_EXIT.ok;
      }),
    );
}
