import { chmod, mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { UsageFailure } from './failures';

/** What `custos login` keeps between commands. The client secret is never part of it. */
export interface Session {
  authUrl: string;
  papUrl: string;
  pdpUrl: string;
  clientId: string;
  accessToken: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  scope: string;
  /** The highest `Policy-Revision` pap answered this session; `decide` and `explain` wait for it by default. */
  lastRevision?: number;
}

const SESSION_FILE = 'session.json';

/** `CUSTOS_CONFIG_DIR`, else `$XDG_CONFIG_HOME/custos`, else `~/.config/custos`. */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.CUSTOS_CONFIG_DIR) return path.resolve(env.CUSTOS_CONFIG_DIR);
  if (env.XDG_CONFIG_HOME) return path.join(path.resolve(env.XDG_CONFIG_HOME), 'custos');
  return path.join(homedir(), '.config', 'custos');
}

export const sessionPath = (env: NodeJS.ProcessEnv): string => path.join(configDir(env), SESSION_FILE);

function isSession(value: unknown): value is Session {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  const strings = ['authUrl', 'papUrl', 'pdpUrl', 'clientId', 'accessToken', 'scope'];
  return (
    strings.every((key) => typeof v[key] === 'string') &&
    typeof v.expiresAt === 'number' &&
    (v.lastRevision === undefined || typeof v.lastRevision === 'number')
  );
}

/** The cached session, or undefined when nobody logged in. A damaged file is a usage error, never a crash. */
export async function readSession(env: NodeJS.ProcessEnv): Promise<Session | undefined> {
  const file = sessionPath(env);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageFailure(`cannot read the login cache \`${file}\`: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!isSession(parsed)) throw new UsageFailure(`the login cache \`${file}\` is damaged; run \`custos login\` again`);
  return parsed;
}

/**
 * Writes the session so that only its owner can read it: the directory is 0700 and the file is created 0600 under a
 * temporary name and renamed over the old one, so no moment exists where the token is readable by others.
 */
export async function writeSession(env: NodeJS.ProcessEnv, session: Session): Promise<string> {
  const dir = configDir(env);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const file = path.join(dir, SESSION_FILE);
  const temporary = path.join(dir, `.${SESSION_FILE}.${process.pid}.${Date.now()}`);
  const handle = await open(temporary, 'wx', 0o600);
  try {
    try {
      await handle.chmod(0o600);
      await handle.writeFile(`${JSON.stringify(session, null, 2)}\n`, 'utf8');
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return file;
}

/** Removes the cached session; false when there was none. */
export async function removeSession(env: NodeJS.ProcessEnv): Promise<boolean> {
  const file = sessionPath(env);
  try {
    await rm(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw new UsageFailure(`cannot remove the login cache \`${file}\`: ${(error as Error).message}`);
  }
}

/** A token this close to its expiry is treated as expired: a request sent with it could arrive too late. */
const EXPIRY_MARGIN_MS = 10_000;

/** The session of a logged-in user whose token is still good, or a usage failure saying to log in (again). */
export async function requireSession(env: NodeJS.ProcessEnv, now: number): Promise<Session> {
  const session = await readSession(env);
  if (!session) throw new UsageFailure('not logged in; run `custos login` first');
  if (session.expiresAt - EXPIRY_MARGIN_MS <= now) {
    throw new UsageFailure(
      `the token of \`${session.clientId}\` expired at ${new Date(session.expiresAt).toISOString()}; run \`custos login\` again`,
    );
  }
  return session;
}
