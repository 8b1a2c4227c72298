import { request } from 'node:http';

/** The container engine's Docker-compatible API (docker, or podman's `podman system service`), on DOCKER_HOST. */
export function engineSocket(): string {
  const host = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
  if (!host.startsWith('unix://')) throw new Error(`the compose suite needs DOCKER_HOST as unix://<socket>, got \`${host}\``);
  return host.slice('unix://'.length);
}

export async function engineCall<T>(method: string, path: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: engineSocket(), method, path, timeout: 60_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if ((res.statusCode ?? 500) >= 300 && res.statusCode !== 304) {
          reject(new Error(`${method} ${path}: ${res.statusCode} ${text}`));
          return;
        }
        resolve((text === '' ? undefined : JSON.parse(text)) as T);
      });
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer in 60 s`)));
    req.on('error', reject);
    req.end();
  });
}

export interface ContainerSummary {
  Id: string;
  Names: string[];
  State: string;
  Labels: Record<string, string>;
}

/** The project's containers, running or not, optionally of one service. */
export function listContainers(project: string, service?: string): Promise<ContainerSummary[]> {
  const label = [`com.docker.compose.project=${project}`, ...(service ? [`com.docker.compose.service=${service}`] : [])];
  return engineCall('GET', `/containers/json?all=true&filters=${encodeURIComponent(JSON.stringify({ label }))}`);
}

export interface ContainerDetails {
  Id: string;
  Name: string;
  State: { Status: string; Running: boolean; ExitCode: number; Health?: { Status: string } };
  /** How often the engine restarted it (its restart policy) since it was created. */
  RestartCount: number;
  Config: { Hostname: string };
  NetworkSettings: { Networks: Record<string, { IPAddress: string }> };
}

export function inspectContainer(id: string): Promise<ContainerDetails> {
  return engineCall('GET', `/containers/${id}/json`);
}

/** Stops a container the way `docker stop` does: its stop signal, then SIGKILL after `seconds`. */
export async function stopContainer(id: string, seconds: number): Promise<void> {
  await engineCall('POST', `/containers/${id}/stop?t=${seconds}`);
}

/** Starts a stopped container again, the way `docker start` does. */
export async function startContainer(id: string): Promise<void> {
  await engineCall('POST', `/containers/${id}/start`);
}

/** Whether the engine is podman, whose health checks run from systemd timers (see healthchecks.ts). */
export async function engineIsPodman(): Promise<boolean> {
  const version = await engineCall<{ Components?: Array<{ Name: string }> }>('GET', '/version');
  return (version.Components ?? []).some((component) => /podman/i.test(component.Name));
}
