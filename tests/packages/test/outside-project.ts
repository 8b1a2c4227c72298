import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** What a command printed and how it ended; a failing command is an answer too, not an exception. */
export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * This process's environment without what npm put there for the script that runs the tests (`npm_config_*`,
 * `npm_package_*`…): a command in the outside project must see only that project and its own `.npmrc`, as it
 * would in someone else's repository. The npm cache stays where it is.
 */
export function outsideEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(name) && name !== 'INIT_CWD') env[name] = value;
  }
  const cache = process.env.npm_config_cache;
  return { ...env, ...(cache ? { npm_config_cache: cache } : {}), ...extra };
}

export async function run(command: string, args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<Run> {
  try {
    const { stdout, stderr } = await execFileAsync(command, args, {
      cwd: options.cwd,
      env: outsideEnv(options.env),
      timeout: options.timeoutMs ?? 60_000,
      maxBuffer: 16 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: unknown; stdout?: string; stderr?: string; message: string };
    if (typeof failed.code !== 'number') throw new Error(`\`${command} ${args.join(' ')}\` did not run: ${failed.message}`, { cause: error });
    return { code: failed.code, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** A command that must succeed; its output, or a failure that shows what it printed. */
export async function mustRun(command: string, args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<string> {
  const result = await run(command, args, options);
  if (result.code !== 0) throw new Error(`\`${command} ${args.join(' ')}\` exited with ${result.code}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/**
 * A new npm project in `dir` (outside the repository) whose `@custos/*` packages come from `registryUrl` and all
 * others from the default registry, as a user's `.npmrc` sets it up for a private mirror of the scope.
 */
export function createProject(dir: string, registryUrl: string, manifest: Record<string, unknown>): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ version: '1.0.0', private: true, ...manifest }, null, 2)}\n`);
  writeFileSync(path.join(dir, '.npmrc'), `@custos:registry=${registryUrl}/\n`);
  return dir;
}
