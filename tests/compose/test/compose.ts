import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '@custos/test-kit';

const run = promisify(execFile);

/** `docker-compose` (Compose 1.x, as Debian ships it) unless COMPOSE_COMMAND names another, e.g. `docker compose`. */
function composeCommand(): [string, string[]] {
  const [command, ...args] = (process.env.COMPOSE_COMMAND ?? 'docker-compose').split(' ');
  if (command === undefined || command === '') throw new Error('COMPOSE_COMMAND is empty');
  return [command, args];
}

export interface ComposeProject {
  name: string;
  gatewayUrl: string;
  /** Runs compose with this project's name, file and environment; resolves with its output. */
  compose: (args: string[], timeoutMs?: number) => Promise<{ stdout: string; stderr: string }>;
  /**
   * Puts the gateway on another port from the next compose command on. A port found free before a build of several
   * minutes may be taken by then: the suites take a fresh one right before `up`.
   */
  moveGateway: (port: number) => void;
}

/**
 * A compose project of the repository's docker-compose.yml (followed by `overrides`, e.g. docker-compose.cluster.yml)
 * under a name of its own, with the environment a user would put in .env (the README's admin client, a fresh operator
 * key) and the gateway on `gatewayPort`. The user's own .env is not read: the files are named explicitly and every
 * variable they need is set here.
 */
export function composeProject(gatewayPort: number, { overrides = [] as string[], prefix: namePrefix = 'custos-compose' } = {}): ComposeProject {
  const name = `${namePrefix}-${randomBytes(3).toString('hex')}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    COMPOSE_PROJECT_NAME: name,
    GATEWAY_PORT: String(gatewayPort),
    AUTH_KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    BOOTSTRAP_CLIENT_ID: 'admin',
    BOOTSTRAP_CLIENT_SECRET: 'change-me-now-0123',
    POSTGRES_PASSWORD: randomBytes(12).toString('hex'),
    LOG_LEVEL: 'warn',
  };
  const [command, prefix] = composeCommand();
  const files = ['docker-compose.yml', ...overrides].flatMap((file) => ['-f', path.join(repoRoot(), file)]);
  const project: ComposeProject = {
    name,
    gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
    compose: (args, timeoutMs = 300_000) =>
      run(command, [...prefix, ...files, '-p', name, ...args], {
        cwd: repoRoot(),
        env,
        timeout: timeoutMs,
        maxBuffer: 64 * 1024 * 1024,
      }),
    moveGateway: (port) => {
      env.GATEWAY_PORT = String(port);
      project.gatewayUrl = `http://127.0.0.1:${port}`;
    },
  };
  return project;
}
