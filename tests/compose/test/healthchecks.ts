import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { listContainers } from './engine';

const run = promisify(execFile);

/**
 * Podman runs a container's health check from a systemd timer. On a machine without systemd (this CI machine) no
 * timer exists: the container stays `starting` and compose's `condition: service_healthy` waits forever. This runs
 * `podman healthcheck run` for the project's running containers, standing in for the timers: every `intervalMs` for
 * those not healthy yet, every `healthyIntervalMs` for the healthy ones, one at a time (each check starts a node
 * process in the container; all at once would load a small machine more than the stack does). Docker runs health
 * checks itself; nothing of this is needed there.
 */
export function runPodmanHealthchecks(project: string, { intervalMs = 2_000, healthyIntervalMs = 20_000 } = {}): { stop: () => Promise<void> } {
  let stopped = false;
  const lastChecked = new Map<string, number>();
  const healthy = new Set<string>();
  const loop = (async () => {
    while (!stopped) {
      const started = Date.now();
      try {
        for (const container of await listContainers(project)) {
          if (stopped || container.State !== 'running') continue;
          const due = (lastChecked.get(container.Id) ?? 0) + (healthy.has(container.Id) ? healthyIntervalMs : intervalMs);
          if (Date.now() < due) continue;
          lastChecked.set(container.Id, Date.now());
          // A failing check exits non-zero: podman records it, which is all that is wanted here.
          const passed = await run('podman', ['healthcheck', 'run', container.Id], { timeout: 30_000 }).then(
            () => true,
            () => false,
          );
          if (passed) healthy.add(container.Id);
          else healthy.delete(container.Id);
        }
      } catch {
        // The engine is busy or the project not there yet: the next round tries again.
      }
      const wait = Math.max(0, 1_000 - (Date.now() - started));
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
