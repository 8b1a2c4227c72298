import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { listContainers } from './engine';

const run = promisify(execFile);

/**
 * Podman runs a container's health check from a systemd timer. On a machine without systemd (this CI machine) no
 * timer exists: the container stays `starting` and compose's `condition: service_healthy` waits forever. This runs
 * `podman healthcheck run` for every running container of the project at the compose file's interval, standing in
 * for the timers. Docker runs health checks itself; nothing of this is needed there.
 */
export function runPodmanHealthchecks(project: string, intervalMs = 2_000): { stop: () => Promise<void> } {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const started = Date.now();
      try {
        const containers = await listContainers(project);
        await Promise.all(
          containers
            .filter((container) => container.State === 'running')
            // A failing check exits non-zero: podman records it, which is all that is wanted here.
            .map((container) => run('podman', ['healthcheck', 'run', container.Id], { timeout: 10_000 }).catch(() => undefined)),
        );
      } catch {
        // The engine is busy or the project not there yet: the next round tries again.
      }
      const wait = Math.max(0, intervalMs - (Date.now() - started));
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
