import { Type, type Static } from '@sinclair/typebox';
import { AUTHZEN_DEFAULTS } from './authzen';
import { recordParametersSchema, wireRecordParameters } from './decision-records';
import { oneOfValues } from './schema-kit';
import { SnapshotError } from './snapshot-error';
import { SOLUTION_PATTERN } from './urns';
import { isRecord } from './wire';

/**
 * A solution's settings (pap `GET/PUT /ws/solutions/{solution}/settings`, api.md "Solution settings"): the defaults
 * the pdps decide with for that solution's actions. A setting left out is not set: the pdp's own (`DEFAULT_DECISION`,
 * `PDP_AUTHZEN_DEFAULT`) applies.
 */

export const DEFAULT_DECISIONS = ['allow', 'inhibit'] as const;
export type SolutionDefaultDecision = (typeof DEFAULT_DECISIONS)[number];

export const solutionSettingsSchema = Type.Object(
  {
    defaultDecision: Type.Optional(
      oneOfValues(DEFAULT_DECISIONS, {
        description: 'the decision when no mechanism of the solution decides (`POST /event`, `/events`, timers); absent: the pdp\'s `DEFAULT_DECISION`',
      }),
    ),
    authzenDefault: Type.Optional(
      oneOfValues(AUTHZEN_DEFAULTS, {
        description: 'the AuthZEN answer for an action no deployed mechanism of the solution reacts to; absent: the pdp\'s `PDP_AUTHZEN_DEFAULT`',
      }),
    ),
    recordParameters: Type.Optional(recordParametersSchema),
  },
  { additionalProperties: false },
);
export type SolutionSettings = Static<typeof solutionSettingsSchema>;

/** One solution's settings as a snapshot carries them. */
export interface SolutionSettingsEntry {
  solution: string;
  settings: SolutionSettings;
}

/** Settings off the wire, or undefined: only the known fields with a known value, nothing else. */
export function wireSolutionSettings(value: unknown): SolutionSettings | undefined {
  if (!isRecord(value)) return undefined;
  const { defaultDecision, authzenDefault, recordParameters } = value;
  const settings: SolutionSettings = {};
  if (defaultDecision !== undefined) {
    if (!(DEFAULT_DECISIONS as readonly unknown[]).includes(defaultDecision)) return undefined;
    settings.defaultDecision = defaultDecision as SolutionDefaultDecision;
  }
  if (authzenDefault !== undefined) {
    if (!(AUTHZEN_DEFAULTS as readonly unknown[]).includes(authzenDefault)) return undefined;
    settings.authzenDefault = authzenDefault as SolutionSettings['authzenDefault'];
  }
  if (recordParameters !== undefined) {
    const read = wireRecordParameters(recordParameters);
    if (read === undefined) return undefined;
    settings.recordParameters = read;
  }
  return settings;
}

/** A snapshot's `settings` list entry, or undefined. */
export function wireSettingsEntry(value: unknown): SolutionSettingsEntry | undefined {
  if (!isRecord(value) || typeof value.solution !== 'string' || value.solution === '') return undefined;
  const settings = wireSolutionSettings(value.settings);
  return settings && { solution: value.solution, settings };
}

/** A snapshot's `settings`: a list of entries, each solution once; a SnapshotError says what is wrong. */
export function readSnapshotSettings(value: unknown): SolutionSettingsEntry[] {
  if (!Array.isArray(value)) throw new SnapshotError('snapshot `settings` must be an array');
  const seen = new Set<string>();
  return value.map((item: unknown, index) => {
    const entry = wireSettingsEntry(item);
    if (!entry) throw new SnapshotError(`snapshot settings ${index} must hold \`solution\` and \`settings\` of known settings`);
    if (seen.has(entry.solution)) throw new SnapshotError(`snapshot settings hold \`${entry.solution}\` twice`);
    seen.add(entry.solution);
    return entry;
  });
}

/** The longest solution name pap's settings path takes. */
export const MAX_SOLUTION_NAME = 128;

/** A solution name as pap's settings path takes it (the solution part of every URN, lower case). */
export const solutionNameSchema = Type.String({ pattern: `^${SOLUTION_PATTERN}$`, maxLength: MAX_SOLUTION_NAME, examples: ['acme'] });

/** `GET /ws/solutions/{solution}/settings`: the solution's settings at `revision` (what `Policy-Revision` says too). */
export const solutionSettingsAnswerSchema = Type.Object({
  solution: Type.String(),
  settings: solutionSettingsSchema,
  revision: Type.Integer({ description: 'the revision of the deployed set the settings are part of' }),
});
export type SolutionSettingsAnswer = Static<typeof solutionSettingsAnswerSchema>;

/** `PUT /ws/solutions/{solution}/settings`: the settings now, and whether they changed (then at the new `revision`). */
export const solutionSettingsChangeAnswerSchema = Type.Object({
  solution: Type.String(),
  settings: solutionSettingsSchema,
  revision: Type.Integer({ description: 'the revision after the call: a new one when the settings changed, else the current one' }),
  changed: Type.Boolean(),
});
export type SolutionSettingsChangeAnswer = Static<typeof solutionSettingsChangeAnswerSchema>;
