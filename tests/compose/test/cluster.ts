import type { ComposeProject } from './compose';

/** What docker-compose.cluster.yml runs, read from inside its containers (nothing of it is published). */

/** The NATS services of docker-compose.cluster.yml by their servers' names (`-n`). */
export const NATS_SERVICES: Record<string, string> = { 'nats-1': 'nats', 'nats-2': 'nats-2', 'nats-3': 'nats-3' };

/** The server that leads `stream` (pap's change stream), as the server behind `service` sees it, if any. */
export async function streamLeader(project: ComposeProject, service: string, stream: string): Promise<string | undefined> {
  const { stdout } = await project.compose(['exec', '-T', service, 'wget', '-q', '-O', '-', 'http://127.0.0.1:8222/jsz?accounts=true&streams=true'], 30_000);
  const body = JSON.parse(stdout) as { account_details?: Array<{ stream_detail?: Array<{ name: string; cluster?: { leader?: string; replicas?: unknown[] } }> }> };
  for (const account of body.account_details ?? []) {
    for (const detail of account.stream_detail ?? []) if (detail.name === stream) return detail.cluster?.leader || undefined;
  }
  return undefined;
}

/** A statement on the pg_auto_failover monitor (the `postgres` service), its rows as arrays of text. */
async function monitorQuery(project: ComposeProject, ...statements: string[]): Promise<string[][]> {
  const args = statements.flatMap((statement) => ['-c', statement]);
  const { stdout } = await project.compose(['exec', '-T', 'postgres', 'psql', '-h', '127.0.0.1', '-U', 'postgres', '-d', 'pg_auto_failover', '-v', 'ON_ERROR_STOP=1', '-tA', '-F', '\t', ...args], 30_000);
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => line.split('\t'));
}

export interface NodeState {
  /** The node's name, which is also its compose service (pg-1, pg-2). */
  name: string;
  reported: string;
  assigned: string;
}

export async function nodeStates(project: ComposeProject): Promise<NodeState[]> {
  const rows = await monitorQuery(project, 'SELECT nodename, reportedstate::text, goalstate::text FROM pgautofailover.node ORDER BY nodeid');
  return rows.map(([name = '', reported = '', assigned = '']) => ({ name, reported, assigned }));
}

/** The node serving writes now (the monitor assigned it and it reports so), if any. */
export async function primaryNode(project: ComposeProject): Promise<string | undefined> {
  const states = await nodeStates(project).catch(() => []);
  return states.find((node) => ['primary', 'wait_primary', 'single'].includes(node.reported) && node.reported === node.assigned)?.name;
}

/**
 * A standby's first copy of the primary (pg_basebackup) waits for the primary's next checkpoint, minutes with
 * PostgreSQL's defaults; a CHECKPOINT on the primary ends that wait (docker-compose.cluster.yml, pg-2).
 */
export async function checkpointPrimary(project: ComposeProject): Promise<void> {
  const primary = await primaryNode(project);
  if (primary === undefined) return;
  await project.compose(['exec', '-T', primary, 'psql', '-h', '127.0.0.1', '-U', 'postgres', '-d', 'postgres', '-c', 'CHECKPOINT'], 30_000);
}

/** A primary with its synchronous standby. */
export async function settled(project: ComposeProject): Promise<boolean> {
  const states = await nodeStates(project).catch(() => []);
  const steady = (state: string) => states.some((node) => node.reported === state && node.assigned === state);
  return states.length === 2 && steady('primary') && steady('secondary');
}

/**
 * The monitor's defaults take about 50 s to promote the standby (20 s to call the primary unhealthy, 30 s for it to
 * step down); a test that stopped the primary itself need not wait so long (the system suite's failover test shortens
 * them the same way). A user keeps the defaults (README, "Outgrowing one machine").
 */
export async function shortenFailoverTimings(project: ComposeProject): Promise<void> {
  const settings: Record<string, string> = {
    'pgautofailover.health_check_period': '1000',
    'pgautofailover.health_check_timeout': '1000',
    'pgautofailover.health_check_max_retries': '1',
    'pgautofailover.health_check_retry_delay': '500',
    'pgautofailover.node_considered_unhealthy_timeout': '3000',
    'pgautofailover.primary_demote_timeout': '3000',
  };
  await monitorQuery(project, ...Object.entries(settings).map(([name, value]) => `ALTER SYSTEM SET ${name} = '${value}'`), 'SELECT pg_reload_conf()');
}
