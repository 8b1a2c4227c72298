import { readFile } from 'node:fs/promises';
import type { RemoteContext } from './context';
import { UsageFailure } from './failures';

const REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EACCES: 'permission denied',
  EISDIR: 'it is a directory',
};

/** A file's text, or standard input for `-`; a file that cannot be read is a usage failure (exit 2). */
export async function readInput(file: string, context: RemoteContext): Promise<string> {
  if (file === '-') return context.readStdin();
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageFailure(`cannot read \`${file}\`: ${(code && REASONS[code]) ?? (error as Error).message}`);
  }
}

/** How a file is named in messages: standard input reads as `<stdin>`. */
export const displayName = (file: string): string => (file === '-' ? '<stdin>' : file);
