import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from 'pg';
import { freePort } from './processes';
import { waitFor } from './wait';

const run = promisify(execFile);
const PG_AUTOCTL = process.env.PG_AUTOCTL_BIN ?? '/usr/bin/pg_autoctl';
const POSTGRES_BIN = process.env.POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';

/** One PostgreSQL node of an OwnPostgresFailover (a pg_autoctl keeper and its server). */
export interface FailoverNode {
  /** pg_auto_failover's name of it: `node_1`, `node_2`. */
  name: string;
  port: number;
  running(): boolean;
  /** SIGKILL to the keeper and its server together: the machine of the node died. */
  kill(): Promise<void>;
  /** Runs the node again on its data; the monitor makes it a standby of the current primary. */
  start(): Promise<void>;
}

export interface NodeState {
  name: string;
  port: number;
  reported: string;
  assigned: string;
}

export interface OwnPostgresFailover {
  /** A URL naming both nodes for database `name`, as `pg_autoctl show uri` prints it (libpq's multi-host form). */
  url(name: string): string;
  nodes: FailoverNode[];
  /** What the monitor says about each node now. */
  states(): Promise<NodeState[]>;
  /** The node the monitor has made primary and which reports so, waiting for one. */
  primary(timeoutMs?: number): Promise<FailoverNode>;
  /** Waits until one node is primary and the other its synchronous standby (`secondary`). */
  settled(timeoutMs?: number): Promise<void>;
  destroy(): Promise<void>;
}

/**
 * The monitor decides a node failed after `node_considered_unhealthy_timeout` and then waits
 * `primary_demote_timeout` for the old primary to step down (defaults 20 s and 30 s); a test that killed the primary
 * itself need not wait so long. Production keeps the defaults (README, "Outgrowing one machine").
 */
const MONITOR_SETTINGS: Record<string, string> = {
  'pgautofailover.health_check_period': '1000',
  'pgautofailover.health_check_timeout': '1000',
  'pgautofailover.health_check_max_retries': '1',
  'pgautofailover.health_check_retry_delay': '500',
  'pgautofailover.node_considered_unhealthy_timeout': '3000',
  'pgautofailover.primary_demote_timeout': '3000',
  'pgautofailover.startup_grace_period': '3000',
};

/**
 * PostgreSQL with a synchronous standby that takes over, from Debian's pg_auto_failover: a monitor and two nodes in a
 * temporary folder on free ports, run as `postgres` when this process is root (PostgreSQL refuses root). The first
 * node is primary; the second streams from it and is its synchronous standby (pg_auto_failover's default for two
 * nodes), so a commit the primary acknowledged is on both.
 */
export async function startOwnPostgresFailover(): Promise<OwnPostgresFailover> {
  if (!existsSync(PG_AUTOCTL)) throw new Error(`pg_autoctl not found at ${PG_AUTOCTL} (apt-get install postgresql-15-auto-failover, or set PG_AUTOCTL_BIN)`);
  const dir = mkdtempSync(path.join(tmpdir(), 'custos-pgaf-'));
  const root = process.getuid?.() === 0;
  if (root) {
    const id = async (flag: string) => Number((await run('id', [flag, 'postgres'])).stdout.trim());
    chownSync(dir, await id('-u'), await id('-g'));
  }
  // pg_autoctl keeps its configuration and state under the XDG folders: here, not in the postgres user's home.
  const env = {
    PATH: `${POSTGRES_BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    XDG_CONFIG_HOME: path.join(dir, 'config'),
    XDG_DATA_HOME: path.join(dir, 'data'),
    XDG_RUNTIME_DIR: path.join(dir, 'run'),
  };
  const launch = (args: string[], log: string): ChildProcess => {
    const command = root ? 'runuser' : PG_AUTOCTL;
    const full = root ? ['-u', 'postgres', '--', PG_AUTOCTL, ...args] : args;
    writeFileSync(path.join(dir, log), '');
    if (root) chownSync(path.join(dir, log), ...ownerOf(dir));
    // Its own process group: a kill takes the keeper and the PostgreSQL server it runs together.
    const child = spawn('sh', ['-c', `exec "$0" "$@" >>${path.join(dir, log)} 2>&1`, command, ...full], { env, detached: true, stdio: 'ignore' });
    child.unref();
    return child;
  };
  const monitorPort = await freePort();
  const monitorUrl = `postgres://postgres@127.0.0.1:${monitorPort}/pg_auto_failover`;
  const ports = [await freePort(), await freePort()];
  const children = new Map<string, ChildProcess>();
  const groupAlive = (child: ChildProcess | undefined) => child !== undefined && child.exitCode === null && child.signalCode === null;
  const killGroup = async (key: string) => {
    const child = children.get(key);
    children.delete(key);
    if (!groupAlive(child) || child?.pid === undefined) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      return;
    }
    await exited;
    // The server's children leave with it; wait until nothing of the group is left.
    await waitFor(() => !groupExists(child.pid as number), { timeoutMs: 15_000, what: `the processes of ${key} to end` });
  };
  const monitorQuery = async <T extends object>(sql: string): Promise<T[]> => {
    const client = new Client({ connectionString: monitorUrl, connectionTimeoutMillis: 2000 });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return (await client.query<T>(sql)).rows;
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  const states = async (): Promise<NodeState[]> =>
    (
      await monitorQuery<{ nodename: string; nodeport: number; reportedstate: string; goalstate: string }>(
        'SELECT nodename, nodeport, reportedstate::text, goalstate::text FROM pgautofailover.node ORDER BY nodeid',
      )
    ).map((row) => ({ name: row.nodename, port: row.nodeport, reported: row.reportedstate, assigned: row.goalstate }));

  const nodeArgs = (index: number, create: boolean) => {
    const pgdata = path.join(dir, `node_${index + 1}`);
    return create
      ? ['create', 'postgres', '--pgdata', pgdata, '--pgport', String(ports[index]), '--hostname', '127.0.0.1', '--listen', '127.0.0.1', '--name', `node_${index + 1}`]
          .concat(['--auth', 'trust', '--no-ssl', '--pgctl', path.join(POSTGRES_BIN, 'pg_ctl'), '--monitor', `postgres://autoctl_node@127.0.0.1:${monitorPort}/pg_auto_failover`, '--run'])
      : ['run', '--pgdata', pgdata];
  };
  const nodes: FailoverNode[] = ports.map((port, index) => {
    const name = `node_${index + 1}`;
    return {
      name,
      port: port as number,
      running: () => groupAlive(children.get(name)),
      kill: () => killGroup(name),
      start: async () => {
        if (groupAlive(children.get(name))) return;
        children.set(name, launch(nodeArgs(index, false), `${name}.log`));
      },
    };
  });

  const reportedAs = async (wanted: Record<string, string[]>, timeoutMs: number, what: string) =>
    waitFor(
      async () => {
        const now = await states();
        return Object.entries(wanted).every(([name, accepted]) => {
          const state = now.find((node) => node.name === name);
          return state !== undefined && accepted.includes(state.reported) && state.reported === state.assigned;
        });
      },
      { timeoutMs, intervalMs: 200, what },
    );

  const failover: OwnPostgresFailover = {
    url: (name) => `postgres://postgres@${ports.map((port) => `127.0.0.1:${port}`).join(',')}/${name}?target_session_attrs=read-write`,
    nodes,
    states,
    primary: async (timeoutMs = 60_000) => {
      const name = await waitFor(
        async () => (await states()).find((node) => ['primary', 'wait_primary', 'single'].includes(node.reported) && node.reported === node.assigned)?.name,
        { timeoutMs, intervalMs: 200, what: 'a primary' },
      );
      return nodes.find((node) => node.name === name) as FailoverNode;
    },
    settled: async (timeoutMs = 90_000) => {
      await waitFor(
        async () => {
          const now = await states();
          return (
            now.length === 2 &&
            now.some((node) => node.reported === 'primary' && node.assigned === 'primary') &&
            now.some((node) => node.reported === 'secondary' && node.assigned === 'secondary')
          );
        },
        { timeoutMs, intervalMs: 200, what: 'a primary with its synchronous standby' },
      );
    },
    destroy: async () => {
      for (const key of [...children.keys()]) await killGroup(key).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };

  try {
    children.set(
      'monitor',
      launch(['create', 'monitor', '--pgdata', path.join(dir, 'monitor'), '--pgport', String(monitorPort), '--hostname', '127.0.0.1', '--listen', '127.0.0.1']
        .concat(['--auth', 'trust', '--no-ssl', '--pgctl', path.join(POSTGRES_BIN, 'pg_ctl'), '--run']), 'monitor.log'),
    );
    await waitFor(async () => (await monitorQuery<{ n: number }>('SELECT count(*) AS n FROM pgautofailover.formation')).length > 0, {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: `the pg_auto_failover monitor on port ${monitorPort}`,
    });
    for (const [setting, value] of Object.entries(MONITOR_SETTINGS)) await monitorQuery(`ALTER SYSTEM SET ${setting} = '${value}'`);
    await monitorQuery('SELECT pg_reload_conf()');
    children.set('node_1', launch(nodeArgs(0, true), 'node_1.log'));
    await reportedAs({ node_1: ['single'] }, 90_000, 'node_1 running alone as primary');
    children.set('node_2', launch(nodeArgs(1, true), 'node_2.log'));
    await failover.settled(120_000);
  } catch (error) {
    const logs = ['monitor.log', 'node_1.log', 'node_2.log']
      .map((log) => {
        try {
          return `--- ${log}\n${readFileSync(path.join(dir, log), 'utf8').slice(-2000)}`;
        } catch {
          return '';
        }
      })
      .join('\n');
    await failover.destroy();
    throw new Error(`${(error as Error).message}\n${logs}`, { cause: error });
  }
  return failover;
}

function ownerOf(file: string): [number, number] {
  const stat = statSync(file);
  return [stat.uid, stat.gid];
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
