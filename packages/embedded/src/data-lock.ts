import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { StartupError } from '@custos/service-kit';

/** Whether a process with this id runs (signal 0 only asks). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}

/**
 * Claims `dataDir` for this process: PGlite would let two processes write one database folder and corrupt it. A lock
 * left by a process that no longer runs is taken over. Returns the function that releases it.
 */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, 'lock');
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as { code?: string }).code !== 'EEXIST' || attempt > 0) throw error;
      const holder = Number(readFileSync(file, 'utf8'));
      if (Number.isInteger(holder) && holder > 0 && alive(holder)) {
        throw new StartupError(
          `another embedded Custos (process ${holder}) uses \`${dataDir}\`; stop it first, or set CUSTOS_DATA_DIR to another folder`,
        );
      }
      rmSync(file, { force: true });
    }
  }
}
