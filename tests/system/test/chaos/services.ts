import { freePort, startService, type RunningService, type ServiceName } from '@custos/test-kit';

/** One service's place in the run: its port stays, its process is killed and started again. */
export interface Slot {
  name: ServiceName;
  port: number;
  service: RunningService;
  /** Counts restarts: each instance must never answer a revision below one it answered before. */
  instance: number;
  down: boolean;
  rss: Map<number, { first: number; last: number; startedAt: number; endedAt?: number }>;
}

export const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(Math.random() * items.length)];
export const until = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const PORT_VARIABLE: Record<ServiceName, string> = { 'auth-service': 'AUTH_PORT', 'pap-service': 'PAP_PORT', 'pdp-service': 'PDP_PORT' };

/**
 * The run's processes. Any exit the run did not cause (a SIGKILL of its own, or the end) is a crash of the service,
 * recorded as a violation with the end of the process's output.
 */
export interface ServicePool {
  slots: Slot[];
  launch(name: ServiceName, port?: number): Promise<Slot>;
  /** SIGKILL, then the same service again on the same port. */
  restart(slot: Slot): Promise<void>;
  /** From now on exits are expected. */
  stopping(): void;
  killAll(): Promise<unknown>;
}

export function servicePool(env: Record<string, string>, violations: string[], log: (line: string) => void): ServicePool {
  const slots: Slot[] = [];
  const killed = new Set<number>();
  let stopping = false;
  const launch = async (name: ServiceName, port?: number): Promise<Slot> => {
    const chosen = port ?? (await freePort());
    const service = await startService(name, { ...env, [PORT_VARIABLE[name]]: String(chosen) }, { readyTimeoutMs: 90_000 });
    service.process.once('exit', (code, signal) => {
      if (stopping || killed.has(service.process.pid ?? -1)) return;
      violations.push(`${name} :${chosen} exited by itself (${code ?? signal}): ${service.output().slice(-3000)}`);
      log(`${name} :${chosen} exited by itself (${code ?? signal})`);
    });
    return { name, port: chosen, service, instance: 0, down: false, rss: new Map() };
  };
  const restart = async (slot: Slot) => {
    slot.down = true;
    const sample = slot.rss.get(slot.instance);
    if (sample !== undefined) sample.endedAt = Date.now();
    killed.add(slot.service.process.pid ?? -1);
    await slot.service.kill();
    const next = await launch(slot.name, slot.port);
    slot.service = next.service;
    slot.instance++;
    slot.down = false;
  };
  return {
    slots,
    launch,
    restart,
    stopping: () => {
      stopping = true;
    },
    killAll: () => Promise.all(slots.map((slot) => slot.service.kill())),
  };
}

export interface PapAnswer {
  status: number;
  revision: number;
  body: string;
}
export type PapCall = (method: string, path: string, body?: { json?: unknown; xml?: string }) => Promise<PapAnswer>;

/** Calls a random live pap with the run's token; `setup` throws on anything but success. */
export function papClient(paps: Slot[], token: string): { papCall: PapCall; setup: PapCall } {
  const papCall: PapCall = async (method, path, body) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
    if (body?.json !== undefined) headers['Content-Type'] = 'application/json';
    if (body?.xml !== undefined) headers['Content-Type'] = 'application/xml';
    const target = pick(paps.filter((slot) => !slot.down)) ?? paps[0];
    const response = await fetch(`${target?.service.url ?? ''}${path}`, {
      method,
      headers,
      body: body?.json !== undefined ? JSON.stringify(body.json) : body?.xml,
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    return { status: response.status, revision: Number(response.headers.get('policy-revision') ?? NaN), body: text };
  };
  const setup: PapCall = async (method, path, body) => {
    const answer = await papCall(method, path, body);
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.body}`);
    return answer;
  };
  return { papCall, setup };
}
