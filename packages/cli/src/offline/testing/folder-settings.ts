import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { LocatedProblem } from '../../output/located';
import { DEFAULT_SETTINGS, readSettings } from './read-test-file';
import { Shape } from './shape';
import type { TestSettings } from './test-file';
import { readYaml } from './yaml-source';

/** The folder settings file: what the tests below it decide with, unless a test file's `settings` say otherwise. */
export const FOLDER_SETTINGS_FILE = 'custos.settings.yaml';

export type FolderSettings = { ok: true; settings: TestSettings } | { ok: false; problems: LocatedProblem[] };

/**
 * The settings of the nearest `custos.settings.yaml` in a test file's folder or a folder above it (a mapping as a test
 * file's `settings`: `defaultDecision`, `timeZone`, `solutions`), so one file says a solution's defaults for every
 * test of a policy folder, as pap holds them for the pdps. Read once per folder (`cache`).
 */
export function folderSettingsFor(testFile: string, cache: Map<string, FolderSettings>): FolderSettings {
  const start = path.resolve(path.dirname(testFile));
  const visited: string[] = [];
  let found: FolderSettings = { ok: true, settings: DEFAULT_SETTINGS };
  for (let folder = start; ; folder = path.dirname(folder)) {
    const known = cache.get(folder);
    if (known !== undefined) {
      found = known;
      break;
    }
    visited.push(folder);
    const candidate = path.join(folder, FOLDER_SETTINGS_FILE);
    if (existsSync(candidate)) {
      // Named the way the test file was: absolute, or relative to the working directory.
      found = readFolderSettings(path.isAbsolute(testFile) ? candidate : path.relative(process.cwd(), candidate));
      break;
    }
    if (path.dirname(folder) === folder) break;
  }
  for (const folder of visited) cache.set(folder, found);
  return found;
}

function readFolderSettings(file: string): FolderSettings {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return { ok: false, problems: [{ file, message: `cannot be read: ${(error as Error).message}` }] };
  }
  const yaml = readYaml(text);
  if (!yaml.ok) return { ok: false, problems: yaml.problems.map((problem) => ({ file, ...problem })) };
  const shape = new Shape(yaml.source.locate);
  const value = yaml.source.value ?? {};
  const settings = readSettings(value, shape, DEFAULT_SETTINGS, []);
  if (settings === undefined || shape.problems.length > 0) {
    return {
      ok: false,
      problems: shape.problems.map(({ path: where, message, line, column }) => ({
        file,
        message: where === '' ? message : `${where}: ${message}`,
        ...(line === undefined ? {} : { line }),
        ...(column === undefined ? {} : { column }),
      })),
    };
  }
  return { ok: true, settings };
}
