import type { Pool } from 'pg';
import { wireSolutionSettings, type RecordParameters, type SolutionSettings, type SolutionSettingsEntry } from '@custos/contracts';
import { withChangeTransaction, type ChangeHook, type Queryable } from './db';
import { currentRevision, recordChange } from './revisions';

/** The settings of a solution after a write: the revision they are part of, and whether the write changed them. */
export interface SettingsOutcome {
  settings: SolutionSettings;
  revision: number;
  changed: boolean;
}

/** Settings as stored: only the known fields, in a fixed order, so equal settings are equal JSON. */
const normalized = (settings: SolutionSettings): SolutionSettings => ({
  ...(settings.defaultDecision === undefined ? {} : { defaultDecision: settings.defaultDecision }),
  ...(settings.authzenDefault === undefined ? {} : { authzenDefault: settings.authzenDefault }),
  ...(settings.recordParameters === undefined ? {} : { recordParameters: recordParametersNormalized(settings.recordParameters) }),
});

/** `recordParameters` in a fixed order (names sorted), so equal settings are equal JSON. */
const recordParametersNormalized = ({ clear, hashed }: RecordParameters): RecordParameters => ({
  ...(clear === undefined ? {} : { clear: [...clear].sort() }),
  ...(hashed === undefined ? {} : { hashed }),
});

const fromRow = (value: unknown): SolutionSettings => wireSolutionSettings(value) ?? {};

/** A solution's settings (`{}` when it has none) and the revision they were read at, in one statement. */
export async function readSettings(db: Queryable, solution: string): Promise<{ settings: SolutionSettings; revision: number }> {
  const result = await db.query<{ settings: unknown }>('SELECT settings FROM pap.solution_settings WHERE solution = $1', [solution]);
  return { settings: fromRow(result.rows[0]?.settings), revision: await currentRevision(db) };
}

/**
 * Replaces a solution's settings (`{}` removes them all). Settings that differ from the stored ones are a change of
 * what the pdps decide with: the next revision and an outbox row in the same transaction, as a deploy; equal ones
 * change nothing and answer the current revision.
 */
export function writeSettings(
  pool: Pool,
  onChange: () => void,
  solution: string,
  wanted: SolutionSettings,
  hook?: ChangeHook<SettingsOutcome>,
): Promise<SettingsOutcome> {
  const settings = normalized(wanted);
  return withChangeTransaction(pool, onChange, async (client) => {
    const existing = await client.query<{ settings: unknown }>('SELECT settings FROM pap.solution_settings WHERE solution = $1 FOR UPDATE', [solution]);
    const before = normalized(fromRow(existing.rows[0]?.settings));
    if (JSON.stringify(before) === JSON.stringify(settings)) return { settings, revision: await currentRevision(client), changed: false };
    if (Object.keys(settings).length === 0) {
      await client.query('DELETE FROM pap.solution_settings WHERE solution = $1', [solution]);
    } else {
      await client.query(
        `INSERT INTO pap.solution_settings (solution, settings) VALUES ($1, $2)
         ON CONFLICT (solution) DO UPDATE SET settings = EXCLUDED.settings, updated_at = now()`,
        [solution, JSON.stringify(settings)],
      );
    }
    const revision = await recordChange(client, { type: 'settings', solution, settings });
    return { settings, revision, changed: true };
  }, hook);
}

/** Every solution's settings, by solution in byte order: what a snapshot carries. */
export async function listSettings(db: Queryable): Promise<SolutionSettingsEntry[]> {
  const result = await db.query<{ solution: string; settings: unknown }>('SELECT solution, settings FROM pap.solution_settings ORDER BY solution COLLATE "C"');
  return result.rows.map((row) => ({ solution: row.solution, settings: fromRow(row.settings) }));
}
