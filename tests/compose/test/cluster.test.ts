import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort, waitFor } from '@custos/test-kit';
import { NATS_SERVICES, checkpointPrimary, nodeStates, primaryNode, settled, shortenFailoverTimings, streamLeader } from './cluster';
import { composeProject, type ComposeProject } from './compose';
import { engineIsPodman, inspectContainer, listContainers, startContainer, stopContainer } from './engine';
import { ANN, MASK_POLICY, adminToken, expectAllAnswered, gatewayClient, maskedAnn, type Decision, type GatewayClient } from './gateway';
import { runPodmanHealthchecks } from './healthchecks';
import { serialLoad, steadyLoad, type LoadReport } from './load';
import { event, inhibitAll } from '../../system/test/policies';
import { expectWalkthroughOutput, walkthroughScript } from '../../system/test/readme-walkthrough';

const run = promisify(execFile);

const TOGGLE_POLICY = 'urn:policy:acme:toggle';
/** pap's change stream under docker-compose.yml's NATS_PREFIX (contracts' policySubjects: `<prefix>_policy_changes`). */
const STREAM = 'custos_policy_changes';
/** Never reached: every inhibit of `counted` is the history failing closed (docs/api.md, "Event history"). */
const COUNTED_POLICY = `<policy xmlns="http://www.mydata-control.de/4.0/mydataLanguage" xmlns:constant="http://www.mydata-control.de/4.0/constant" id="urn:policy:acme:counted">
  <mechanism event="urn:action:acme:counted">
    <if><greater><count><eventOccurrence event="urn:action:acme:counted"/><when fixedTime="always"/></count><constant:number value="1000000"/></greater>
      <then><inhibit reason="never"/></then></if>
    <else><allow/></else>
  </mechanism>
</policy>`;
const FAILED_CLOSED = 'failed closed';

/**
 * Issue 23's deployment: docker-compose.yml with docker-compose.cluster.yml (three NATS servers, a pg_auto_failover
 * monitor with a primary and its synchronous standby), started from nothing, the README walk-through through the
 * gateway, then under a steady load of decisions and deploys the container of the NATS server leading pap's change
 * stream is stopped, and then the container of the PostgreSQL primary. Every wait has a deadline.
 */
describe('docker-compose.yml with docker-compose.cluster.yml, run for real', () => {
  let project: ComposeProject;
  let healthchecks: { stop: () => Promise<void> } | undefined;
  let client: GatewayClient;
  /** The last change pap acknowledged: its revision and whether the toggled policy is deployed from it on. */
  let acked = { revision: 0, deployed: false };
  /** The PostgreSQL node whose container the failover test stopped, for the rejoin test. */
  let stoppedPrimary: { name: string; id: string } | undefined;

  /** Pure decisions (Ann, masked), history decisions (`counted`) and deploys/revokes of the toggled policy, all at once. */
  const startLoad = () => {
    const started = Date.now();
    const pure = steadyLoad(() => client.decide(ANN), maskedAnn, { everyMs: 50 });
    const history = steadyLoad(
      () => client.decide(event('acme', 'counted')),
      (response, body) => {
        if (response.status !== 200) return `status ${response.status}: ${JSON.stringify(body)}`;
        return (body as Decision).eventAllowed ? undefined : FAILED_CLOSED;
      },
      { everyMs: 100 },
    );
    const changes = serialLoad(
      async () => {
        const deploy = !acked.deployed;
        const revision = await client.change(TOGGLE_POLICY, deploy ? 'deploy' : 'revoke');
        acked = { revision, deployed: deploy };
      },
      { pauseMs: 300 },
    );
    return {
      elapsed: () => Date.now() - started,
      pure,
      history,
      changes,
      stop: async () => ({ pure: await pure.stop(), history: await history.stop(), changes: await changes.stop() }),
    };
  };
  /** Every pdp replica at the last acknowledged revision or later, and deciding by it. */
  const expectEveryReplicaAtLastChange = async () => {
    const last = acked;
    await waitFor(
      async () => {
        const { revision, replicas } = await client.replicas();
        return revision >= last.revision && replicas.length >= 3 && replicas.every((replica) => replica.revision !== null && replica.revision >= last.revision);
      },
      { timeoutMs: 60_000, intervalMs: 1_000, what: `pap and every pdp at revision ${last.revision} or later` },
    );
    const { revision } = await client.replicas();
    // No change came after the load stopped: pap's revision is the last one it acknowledged, and it is in force.
    expect(revision).toBe(last.revision);
    for (let asked = 0; asked < 6; asked++) {
      const response = await client.decide(event('acme', 'toggled'), last.revision);
      expect(response.status).toBe(200);
      expect(((await response.json()) as Decision).eventAllowed).toBe(!last.deployed);
    }
  };

  /** Failures of the load, each at or after `fromMs` and of the kinds `allowed` accepts. */
  const expectFailuresOnlyAfter = (report: LoadReport, fromMs: number, allowed: (detail: string) => boolean) => {
    const outside = report.failures.filter((failure) => failure.atMs < fromMs || !allowed(failure.detail));
    expect(outside).toEqual([]);
  };

  /** Each auth, pap and pdp container's restart count, by container name. */
  const restartsOfCustos = async () => {
    const counts: Record<string, number> = {};
    for (const service of ['auth', 'pap', 'pdp']) {
      for (const container of await listContainers(project.name, service)) {
        const details = await inspectContainer(container.Id);
        counts[details.Name] = details.RestartCount;
      }
    }
    return counts;
  };

  /** Runs `check`; when it fails, adds what the engine and the Custos services say (restarts, last log lines). */
  const withDiagnostics = async (check: () => Promise<void>) => {
    try {
      await check();
    } catch (error) {
      const { stdout: ps } = await project.compose(['ps']).catch(() => ({ stdout: '(compose ps failed)' }));
      const { stdout: logs } = await project.compose(['logs', '--no-color', '--tail', '25', 'pdp', 'pap']).catch(() => ({ stdout: '(compose logs failed)' }));
      const interesting = logs.split('\n').filter((line) => !line.includes('"msg":"request"') && !line.includes('"log":"decision"'));
      throw new Error(`${(error as Error).message}\n--- compose ps\n${ps}\n--- pdp and pap\n${interesting.join('\n')}`, { cause: error });
    }
  };

  beforeAll(async () => {
    project = composeProject(await freePort(), { overrides: ['docker-compose.cluster.yml'], prefix: 'custos-cluster' });
    if (await engineIsPodman()) healthchecks = runPodmanHealthchecks(project.name);
    await project.compose(['down', '-v', '--timeout', '5']);
    await project.compose(['build'], 1_500_000);
    project.moveGateway(await freePort());
    try {
      await project.compose(['up', '-d'], 240_000);
      await waitFor(async () => (await fetch(`${project.gatewayUrl}/healthz`)).status === 200, { timeoutMs: 120_000, intervalMs: 500, what: 'the gateway' });
    } catch (error) {
      const { stdout } = await project.compose(['ps']).catch(() => ({ stdout: '(compose ps failed)' }));
      const logs = await project.compose(['logs', '--no-color', '--tail', '30']).catch(() => ({ stdout: '(compose logs failed)' }));
      throw new Error(`the clustered form did not come up: ${(error as Error).message}\n${stdout}\n${logs.stdout}`, { cause: error });
    }
    await shortenFailoverTimings(project);
    // pg-2 becomes pg-1's synchronous standby: its first copy waits for a checkpoint of pg-1, hurried here.
    await waitFor(async () => (await settled(project)) || (await checkpointPrimary(project).then(() => false)), {
      timeoutMs: 120_000,
      intervalMs: 3_000,
      what: 'pg-2 the synchronous standby of pg-1',
    });
    client = gatewayClient(project.gatewayUrl, await adminToken(project.gatewayUrl));
  }, 1_800_000);

  afterAll(async () => {
    if (project && (await listContainers(project.name)).length > 0) await project.compose(['down', '-v', '--timeout', '5']).catch(() => undefined);
    await healthchecks?.stop();
  }, 300_000);

  it('runs the README walk-through through the gateway', async () => {
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', walkthroughScript()], {
      env: { ...process.env, AUTH: project.gatewayUrl, PAP: project.gatewayUrl, PDP: project.gatewayUrl },
      timeout: 120_000,
    });
    expectWalkthroughOutput(stdout);
    // The load's policies: Ann masked, the history-counting one, and the one deployed and revoked under load.
    await client.addPolicy(COUNTED_POLICY);
    await client.addPolicy(inhibitAll('acme', 'toggle', 'toggled'));
    await client.change('urn:policy:acme:counted', 'deploy');
    acked = { revision: await client.change(MASK_POLICY, 'deploy'), deployed: false };
    await expectEveryReplicaAtLastChange();
  }, 180_000);

  it('decides and deploys on while the NATS server leading the change stream stops; every pdp reaches the last change', async () => {
    const stream = STREAM;
    const leader = await waitFor(() => streamLeader(project, 'nats', stream), { timeoutMs: 30_000, intervalMs: 1_000, what: `a leader of ${stream}` });
    const service = NATS_SERVICES[leader];
    if (service === undefined) throw new Error(`the stream's leader \`${leader}\` is none of ${Object.keys(NATS_SERVICES).join(', ')}`);
    const [container] = await listContainers(project.name, service);
    if (container === undefined) throw new Error(`no container of ${service}`);

    const load = startLoad();
    await waitFor(() => load.pure.sent() >= 60 && load.changes.succeeded() >= 3, { timeoutMs: 60_000, what: 'load before the stop' });
    const stoppedAtMs = load.elapsed();
    await stopContainer(container.Id, 10);
    const witness = Object.values(NATS_SERVICES).find((other) => other !== service) as string;
    await waitFor(
      async () => {
        const now = await streamLeader(project, witness, stream).catch(() => undefined);
        return now !== undefined && now !== leader;
      },
      { timeoutMs: 60_000, intervalMs: 1_000, what: `a new leader of ${stream} after ${leader} stopped` },
    );
    const changesAtElection = load.changes.succeeded();
    const pureAtElection = load.pure.sent();
    await waitFor(() => load.changes.succeeded() >= changesAtElection + 5 && load.pure.sent() >= pureAtElection + 100, {
      timeoutMs: 90_000,
      what: '5 deploys and 100 decisions after the election',
    });
    await startContainer(container.Id);
    const reports = await load.stop();

    await expectAllAnswered(project, reports.pure, 160);
    // The database is untouched: no history decision fails closed.
    await expectAllAnswered(project, reports.history, 50);
    expectFailuresOnlyAfter(reports.changes, stoppedAtMs, (detail) => !/status 500/.test(detail));
    await expectEveryReplicaAtLastChange();
  }, 300_000);

  it('decides on while the PostgreSQL primary stops: history fails closed only during the switch, deploys come back, no change lost', async () => {
    await waitFor(() => settled(project), { timeoutMs: 60_000, intervalMs: 1_000, what: 'a primary with its synchronous standby' });
    const primary = (await primaryNode(project)) as string;
    const [container] = await listContainers(project.name, primary);
    if (container === undefined) throw new Error(`no container of ${primary}`);

    const restartsBefore = await restartsOfCustos();
    const load = startLoad();
    await waitFor(() => load.pure.sent() >= 60 && load.changes.succeeded() >= 3, { timeoutMs: 60_000, what: 'load before the stop' });
    const stoppedAtMs = load.elapsed();
    const lastBefore = acked;
    await stopContainer(container.Id, 10);
    stoppedPrimary = { name: primary, id: container.Id };
    await waitFor(
      async () => {
        const now = await primaryNode(project);
        return now !== undefined && now !== primary;
      },
      { timeoutMs: 90_000, intervalMs: 500, what: `the standby promoted after ${primary} stopped` },
    );
    // Back without a restart: deploys acknowledged and history decisions recorded again; from then on none fails.
    const changesAtPromotion = load.changes.succeeded();
    const historyAtPromotion = load.history.succeeded();
    await waitFor(() => load.changes.succeeded() >= changesAtPromotion + 3 && load.history.succeeded() >= historyAtPromotion + 20, {
      timeoutMs: 90_000,
      what: '3 deploys and 20 recorded history decisions after the promotion',
    });
    const recoveredAtMs = load.elapsed();
    const historyAtRecovery = load.history.sent();
    await waitFor(() => load.history.sent() >= historyAtRecovery + 50, { timeoutMs: 60_000, what: '50 history decisions after the recovery' });
    const reports = await load.stop();

    await withDiagnostics(async () => {
      // No Custos process ended: each recovered by itself (issue 23: a pool losing a server mid-question once ended them).
      expect(await restartsOfCustos()).toEqual(restartsBefore);
      await expectAllAnswered(project, reports.pure, 160);
    });
    // History decisions failed closed (an inhibit, never an error) between the stop and the recovery, and only then.
    expectFailuresOnlyAfter(reports.history, stoppedAtMs, (detail) => detail === FAILED_CLOSED);
    expect(reports.history.failures.filter((failure) => failure.atMs > recoveredAtMs)).toEqual([]);
    expect(reports.changes.failures.every((failure) => !/status 500/.test(failure.detail))).toBe(true);
    expectFailuresOnlyAfter(reports.changes, stoppedAtMs, () => true);
    // Every change acknowledged before the stop survived it (synchronous standby), and those after reached every pdp.
    expect(acked.revision).toBeGreaterThan(lastBefore.revision);
    await expectEveryReplicaAtLastChange();
    // auth issues tokens again (it reads the client from the database).
    await expect(adminToken(project.gatewayUrl)).resolves.toEqual(expect.any(String));
  }, 300_000);

  it('takes the old primary back as the synchronous standby of the new one: a change made then is on both', async () => {
    if (stoppedPrimary === undefined) throw new Error('the failover test stopped no primary');
    const old = stoppedPrimary;
    const primary = await primaryNode(project);
    await startContainer(old.id);
    // pg_autoctl finds the node demoted while it was away, rewinds it to the new primary's timeline and follows it.
    await waitFor(() => settled(project), { timeoutMs: 180_000, intervalMs: 2_000, what: `${old.name} back as the standby of ${String(primary)}` });
    expect(await primaryNode(project)).toBe(primary);
    expect((await nodeStates(project)).find((node) => node.name === old.name)).toMatchObject({ reported: 'secondary', assigned: 'secondary' });
    // Acknowledged only once the synchronous standby (the old primary) has it; every pdp decides by it.
    const deploy = !acked.deployed;
    acked = { revision: await client.change(TOGGLE_POLICY, deploy ? 'deploy' : 'revoke'), deployed: deploy };
    await expectEveryReplicaAtLastChange();
    const revisionOn = async (node: string) => {
      const { stdout } = await project.compose(['exec', '-T', node, 'psql', '-h', '127.0.0.1', '-U', 'postgres', '-d', 'custos', '-tAc', 'SELECT revision FROM pap.state'], 30_000);
      return Number(stdout.trim());
    };
    // Synchronous means flushed there, not yet applied: the standby shows it once it has replayed it.
    await waitFor(async () => (await revisionOn(old.name)) === acked.revision, { timeoutMs: 30_000, intervalMs: 500, what: `revision ${acked.revision} on ${old.name}` });
  }, 300_000);

  it('ends with down -v: no container and no volume of the project left', async () => {
    await project.compose(['down', '-v', '--timeout', '5']);
    expect(await listContainers(project.name)).toEqual([]);
  }, 120_000);
});
