import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { freePort } from './processes';
import { NATS_BINARY, portAnswers } from './nats-server';
import { waitFor } from './wait';

/** One server of an OwnNatsCluster. */
export interface ClusterNode {
  /** Its server name (`n1`, `n2`, …), as JetStream names stream leaders and replicas. */
  name: string;
  url: string;
  port: number;
  running(): boolean;
  /** SIGKILL: a crash, no goodbye to the cluster. */
  kill(): Promise<void>;
  /** Starts it again on the same ports and store; it rejoins the cluster and catches up. */
  start(): Promise<void>;
}

export interface OwnNatsCluster {
  /** Every server's client URL, comma-separated, as `NATS_URL` takes them. */
  url: string;
  nodes: ClusterNode[];
  node(name: string): ClusterNode;
  /** Waits until the stream has a leader (after an election; with `not`, one other than that server) and returns it. */
  streamLeader(stream: string, options?: { not?: string; timeoutMs?: number }): Promise<ClusterNode>;
  /** A connection to the running servers (closed by the caller). */
  connect(): Promise<NatsConnection>;
  /** Kills every server and deletes the stores. */
  destroy(): Promise<void>;
}

const CLUSTER_NAME = 'custos-test';

/**
 * A JetStream cluster of `size` nats-servers on this host, each with its own client port, route port and store in a
 * temporary folder, for tests that kill a server (a stream leader) without touching the machine's NATS. Ready means
 * every server sees the others and JetStream answers (its meta leader is elected).
 */
export async function startOwnNatsCluster({ size = 3 }: { size?: number } = {}): Promise<OwnNatsCluster> {
  if (!existsSync(NATS_BINARY)) throw new Error(`nats-server not found at ${NATS_BINARY} (set NATS_SERVER_BIN)`);
  const root = mkdtempSync(path.join(tmpdir(), 'custos-nats-cluster-'));
  const specs: Array<{ name: string; port: number; routePort: number; store: string }> = [];
  for (let index = 1; index <= size; index++) {
    const store = path.join(root, `n${index}`);
    mkdirSync(store);
    specs.push({ name: `n${index}`, port: await freePort(), routePort: await freePort(), store });
  }
  const routes = specs.map((spec) => `nats://127.0.0.1:${spec.routePort}`).join(',');
  const urls = specs.map((spec) => `nats://127.0.0.1:${spec.port}`);

  const nodes: ClusterNode[] = specs.map((spec) => {
    let child: ChildProcess | undefined;
    const node: ClusterNode = {
      name: spec.name,
      url: `nats://127.0.0.1:${spec.port}`,
      port: spec.port,
      running: () => child !== undefined && child.exitCode === null && child.signalCode === null,
      start: async () => {
        if (node.running()) return;
        child = spawn(
          NATS_BINARY,
          ['-n', spec.name, '-a', '127.0.0.1', '-p', String(spec.port), '-js', '-sd', spec.store, '--cluster_name', CLUSTER_NAME, '--cluster', `nats://127.0.0.1:${spec.routePort}`, '--routes', routes],
          { stdio: 'ignore' },
        );
        await waitFor(() => portAnswers(spec.port), { timeoutMs: 15_000, what: `nats-server ${spec.name} on port ${spec.port}` });
      },
      kill: async () => {
        const running = child;
        child = undefined;
        if (!running || running.exitCode !== null || running.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
        running.kill('SIGKILL');
        await exited;
      },
    };
    return node;
  });

  const connectAny = () => connect({ servers: urls, timeout: 1000, reconnect: false });
  const cluster: OwnNatsCluster = {
    url: urls.join(','),
    nodes,
    node: (name) => {
      const found = nodes.find((node) => node.name === name);
      if (!found) throw new Error(`no nats-server named ${name} in the cluster (${nodes.map((node) => node.name).join(', ')})`);
      return found;
    },
    connect: () => connect({ servers: urls, timeout: 2000 }),
    streamLeader: async (stream, { not, timeoutMs = 30_000 } = {}) => {
      const name = await waitFor(
        async () => {
          const nc = await connectAny();
          try {
            const info = await (await nc.jetstreamManager({ timeout: 2000 })).streams.info(stream);
            const leader = info.cluster?.leader;
            return leader === not ? undefined : leader;
          } finally {
            await nc.close();
          }
        },
        { timeoutMs, intervalMs: 100, what: `a leader of stream ${stream}` },
      );
      return cluster.node(name);
    },
    destroy: async () => {
      await Promise.all(nodes.map((node) => node.kill()));
      rmSync(root, { recursive: true, force: true });
    },
  };
  try {
    await Promise.all(nodes.map((node) => node.start()));
    // Every server advertises all of them once the routes are up, and JetStream answers once a meta leader is elected.
    await waitFor(
      async () => {
        for (const url of urls) {
          const nc = await connect({ servers: url, timeout: 1000, reconnect: false });
          try {
            if ((nc.info?.connect_urls?.length ?? 0) < size) return false;
            await (await nc.jetstreamManager({ timeout: 2000 })).getAccountInfo();
          } finally {
            await nc.close();
          }
        }
        return true;
      },
      { timeoutMs: 30_000, intervalMs: 100, what: `a ${size}-node NATS cluster with JetStream` },
    );
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
  return cluster;
}
