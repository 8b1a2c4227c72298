import { AUTHZEN_DEFAULTS, DEFAULT_DECISIONS, SOLUTION_PATTERN, type RecordParameters, type SolutionSettings } from '@custos/contracts';
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
  recordParameters?: string;
  recordHashed?: boolean;
  json?: boolean;
}

/** The settings with one value each, set by an option of their own. */
type ValueSetting = 'defaultDecision' | 'authzenDefault';

/** The pdp setting each solution setting falls back to, for the printout. */
const FALLBACKS: Record<ValueSetting, string> = { defaultDecision: 'DEFAULT_DECISION', authzenDefault: 'PDP_AUTHZEN_DEFAULT' };

/**
 * `--record-parameters a,b` (`*`: every parameter; `none`: none in clear) with `--record-hashed`: which parameters
 * decision records carry; `unset` removes the setting (records carry none). Undefined: keep it.
 */
function recordParametersOf(options: SettingsOptions): RecordParameters | typeof UNSET | undefined {
  const text = options.recordParameters;
  if (text === undefined) {
    if (options.recordHashed === true) throw new UsageFailure('--record-hashed goes with --record-parameters');
    return undefined;
  }
  if (text === UNSET) return UNSET;
  const clear = text === 'none' ? [] : text.split(',').map((name) => name.trim()).filter((name) => name !== '');
  return { clear, ...(options.recordHashed === true ? { hashed: true } : {}) };
}

const recordParametersLine = (settings: SolutionSettings): string => {
  const value = settings.recordParameters;
  // Not set: said by nothing, so the printout of solutions without it stays as it was.
  if (value === undefined) return '';
  const clear = value.clear === undefined || value.clear.length === 0 ? 'none' : value.clear.join(',');
  return `recordParameters: in clear ${clear}${value.hashed === true ? ', the others hashed' : ''}\n`;
};

function chosen(option: string, value: string | undefined, allowed: readonly string[]): string | undefined {
  if (value === undefined) return undefined;
  if (value === UNSET || allowed.includes(value)) return value;
  throw new UsageFailure(`${option} must be ${[...allowed, UNSET].map((v) => `\`${v}\``).join(', ')}; got \`${value}\``);
}

/** The options checked: each setting's new value, `unset`, or undefined to keep it. */
function wantedOf(options: SettingsOptions): Array<[ValueSetting, string | undefined]> {
  return [
    ['defaultDecision', chosen('--default-decision', options.defaultDecision, DEFAULT_DECISIONS)],
    ['authzenDefault', chosen('--authzen-default', options.authzenDefault, AUTHZEN_DEFAULTS)],
  ];
}

/** `current` with the options applied: a value sets, `unset` removes, an option not given keeps. */
function changed(
  current: SolutionSettings,
  wanted: ReadonlyArray<[ValueSetting, string | undefined]>,
  recordParameters: RecordParameters | typeof UNSET | undefined,
): SolutionSettings {
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of wanted) {
    if (value === UNSET) delete next[key];
    else if (value !== undefined) next[key] = value;
  }
  if (recordParameters === UNSET) delete next.recordParameters;
  else if (recordParameters !== undefined) next.recordParameters = recordParameters;
  return next as SolutionSettings;
}

const settingsLines = (settings: SolutionSettings): string =>
  (Object.keys(FALLBACKS) as ValueSetting[]).map((key) => `${key}: ${settings[key] ?? `not set (the pdp's ${FALLBACKS[key]})`}\n`).join('') +
  recordParametersLine(settings);

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
    .option('--record-parameters <names>', 'parameters decision records carry in clear: a,b (* every one, none none), or unset')
    .option('--record-hashed', 'with --record-parameters: record the other parameters as keyed hashes')
    .option('--json', "print pap's answer as JSON")
    .action((solution: string, options: SettingsOptions) =>
      runAction(context, async () => {
        if (!new RegExp(`^${SOLUTION_PATTERN}$`).test(solution)) throw new UsageFailure(`\`${solution}\` is not a solution name`);
        const wanted = wantedOf(options);
        const recordParameters = recordParametersOf(options);
        const path = `/ws/solutions/${solution}/settings`;
        const api = await sessionApi(context);
        const current = await api.papJson('GET', path);
        if (wanted.every(([, value]) => value === undefined) && recordParameters === undefined) {
          context.out(options.json === true ? `${JSON.stringify(current, null, 2)}\n` : `solution ${solution}\n${settingsLines(settingsOf(current))}`);
          return REMOTE_EXIT.ok;
        }
        const next = changed(settingsOf(current), wanted, recordParameters);
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
