import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { registerRemoteCommands } from '../../src/remote/commands';
import { writeSession, type Session } from '../../src/remote/config-store';

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  stdin?: string;
  now?: number;
}

/**
 * Runs one `custos` command line in-process through commander, with the remote commands registered on a captured
 * context: the output, the exit code, and nothing written to the real process.
 */
export async function runCli(args: string[], options: CliOptions = {}): Promise<CliRun> {
  let out = '';
  let err = '';
  let code = 0;
  const program = new Command('custos').exitOverride().configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (err += s) });
  registerRemoteCommands(program, {
    env: options.env ?? {},
    out: (text) => (out += text),
    err: (text) => (err += text),
    readStdin: () => Promise.resolve(options.stdin ?? ''),
    now: () => options.now ?? Date.now(),
    setExitCode: (value) => (code = value),
  });
  try {
    await program.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    code = error.exitCode === 0 ? 0 : 2;
  }
  return { code, out, err };
}

/** A temporary configuration directory, removed by `cleanup`. */
export async function tempConfig(): Promise<{ dir: string; env: NodeJS.ProcessEnv; cleanup: () => Promise<void> }> {
  const base = await mkdtemp(path.join(tmpdir(), 'custos-cli-test-'));
  const dir = path.join(base, 'custos');
  return { dir, env: { CUSTOS_CONFIG_DIR: dir }, cleanup: () => rm(base, { recursive: true, force: true }) };
}

/** Logs in without an auth service: a session as `custos login` writes it, valid for an hour. */
export async function loggedIn(env: NodeJS.ProcessEnv, urls: { pap?: string; pdp?: string }, extra: Partial<Session> = {}): Promise<void> {
  await writeSession(env, {
    authUrl: 'http://127.0.0.1:1',
    papUrl: urls.pap ?? 'http://127.0.0.1:1',
    pdpUrl: urls.pdp ?? 'http://127.0.0.1:1',
    clientId: 'tester',
    accessToken: 'token-for-tests',
    expiresAt: Date.now() + 3_600_000,
    scope: 'policy:read policy:write',
    ...extra,
  });
}
