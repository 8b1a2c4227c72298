import type { SolutionSettings, SolutionSettingsEntry } from '@custos/contracts';

/** The settings of every solution that has any, by solution: part of what a revision decides with. */
export type SettingsBySolution = ReadonlyMap<string, SolutionSettings>;

export const NO_SETTINGS: SettingsBySolution = new Map();

/** The settings of a snapshot (none when an older pap sent none). */
export const settingsOfSnapshot = (entries: readonly SolutionSettingsEntry[] | undefined): SettingsBySolution =>
  entries === undefined || entries.length === 0 ? NO_SETTINGS : new Map(entries.map((entry) => [entry.solution, entry.settings]));

/** `current` with one solution's settings replaced; empty settings remove the solution. */
export function withSettings(current: SettingsBySolution, solution: string, settings: SolutionSettings): SettingsBySolution {
  const next = new Map(current);
  if (Object.keys(settings).length === 0) next.delete(solution);
  else next.set(solution, settings);
  return next;
}
