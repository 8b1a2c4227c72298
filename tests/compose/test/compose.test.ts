import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { freePort, waitFor } from '@custos/test-kit';
import { composeProject, type ComposeProject } from './compose';
import { engineIsPodman, inspectContainer, listContainers, stopContainer } from './engine';
import { runPodmanHealthchecks } from './healthchecks';
import { ANN, MASK_POLICY, adminToken, expectAllAnswered, gatewayClient, maskedAnn, type Decision, type GatewayClient } from './gateway';
import { steadyLoad, type LoadReport } from './load';
// The system suite's reading of the README's walk-through: the same script and the same expectations, here through the gateway.
import { expectWalkthroughOutput, walkthroughScript } from '../../system/test/readme-walkthrough';

const run = promisify(execFile);

describe('docker-compose.yml, run for real', () => {
  let project: ComposeProject;
  let healthchecks: { stop: () => Promise<void> } | undefined;
  let client: GatewayClient;
  let token: string;
  let revision: number;

  const gateway = (path: string, init: RequestInit = {}) => client.call(path, init);
  /** Deploys or revokes the walk-through's policy through the gateway; the revision it took effect at. */
  const change = (verb: 'deploy' | 'revoke') => client.change(MASK_POLICY, verb);
  const decideAnn = (minRevision?: number) => client.decide(ANN, minRevision);

  /** Allowed, masked or not: the policy is revoked and deployed again meanwhile. */
  const allowedAnn = (response: Response, body: unknown) =>
    response.status === 200 && (body as Decision).eventAllowed === true ? undefined : `status ${response.status}: ${JSON.stringify(body)}`;

  /** pap's view of the replicas: every one heard from lately, at which revision. */
  const replicas = async () => (await client.replicas()).replicas;

  const answerOf = async (pending: Promise<Response>): Promise<[Response, unknown]> => {
    const response = await pending;
    return [response, await response.json()];
  };

  const runningPdps = async () => (await listContainers(project.name, 'pdp')).filter((container) => container.State === 'running');

  const expectNoFailures = (report: LoadReport, atLeast: number) => expectAllAnswered(project, report, atLeast);

  beforeAll(async () => {
    project = composeProject(await freePort());
    if (await engineIsPodman()) healthchecks = runPodmanHealthchecks(project.name);
    await project.compose(['build'], 1_500_000);
    project.moveGateway(await freePort());
    await project.compose(['up', '-d'], 900_000);
    // The gateway starts last, once every service is healthy.
    await waitFor(async () => (await fetch(`${project.gatewayUrl}/healthz`)).status === 200, {
      timeoutMs: 120_000,
      intervalMs: 500,
      what: 'the gateway',
    });
    token = await adminToken(project.gatewayUrl);
    client = gatewayClient(project.gatewayUrl, token);
  }, 2_700_000);

  afterAll(async () => {
    // Normally the last test has taken it down already; this is for a run that failed before.
    if (project && (await listContainers(project.name)).length > 0) await project.compose(['down', '-v', '--timeout', '5']).catch(() => undefined);
    await healthchecks?.stop();
  }, 300_000);

  it('runs the README walk-through through the gateway', async () => {
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', walkthroughScript()], {
      env: { ...process.env, AUTH: project.gatewayUrl, PAP: project.gatewayUrl, PDP: project.gatewayUrl },
      timeout: 120_000,
    });
    expectWalkthroughOutput(stdout);
  });

  it('keeps deciding through the gateway while a pdp container stops, losing no decision', async () => {
    revision = await change('deploy');
    await waitFor(async () => maskedAnn(...(await answerOf(decideAnn(revision)))) === undefined, { what: 'the deployed policy' });
    const before = await runningPdps();
    expect(before).toHaveLength(3);
    await waitFor(async () => (await replicas()).filter((replica) => replica.revision === revision).length === 3, {
      timeoutMs: 60_000,
      intervalMs: 500,
      what: 'every pdp at the deployed revision',
    });

    // Plain decisions, as a PEP asks for them: no Min-Policy-Revision to hide a replica without the set.
    const load = steadyLoad(() => decideAnn(), maskedAnn);
    await waitFor(() => load.sent() >= 100, { timeoutMs: 60_000, what: '100 decisions before the stop' });
    const victim = before[1]!;
    await stopContainer(victim.Id, 20);
    const stopped = await inspectContainer(victim.Id);
    const sentAtStop = load.sent();
    await waitFor(() => load.sent() >= sentAtStop + 300, { timeoutMs: 60_000, what: '300 decisions after the stop' });
    const report = await load.stop();

    // SIGTERM drained it: it ended by itself (exit 0), not by the SIGKILL after the grace period (137).
    expect(stopped.State).toMatchObject({ Running: false, ExitCode: 0 });
    expect(await runningPdps()).toHaveLength(2);
    await expectNoFailures(report, 400);
  });

  it('adds a fourth pdp under load, which follows the deployed set and takes decisions from the gateway', async () => {
    const known = new Set((await listContainers(project.name, 'pdp')).map((container) => container.Id));
    const load = steadyLoad(() => decideAnn(), maskedAnn);
    await waitFor(() => load.sent() >= 50, { timeoutMs: 60_000, what: 'decisions before the scale-up' });

    // The stopped one starts again, and one more is made.
    await project.compose(['up', '-d', '--no-deps', '--no-recreate', '--scale', 'pdp=4', 'pdp']);
    const added = (await listContainers(project.name, 'pdp')).filter((container) => !known.has(container.Id));
    expect(added).toHaveLength(1);
    const fourth = await waitFor(
      async () => {
        const details = await inspectContainer(added[0]!.Id);
        return details.State.Health?.Status === 'healthy' && details;
      },
      { timeoutMs: 180_000, intervalMs: 1_000, what: 'the fourth pdp to be healthy' },
    );
    expect(await runningPdps()).toHaveLength(4);

    // pap hears from it at the deployed revision (PDP_REPLICA_ID defaults to <hostname>:<port>).
    await waitFor(
      async () => (await replicas()).some((replica) => replica.replica === `${fourth.Config.Hostname}:8080` && replica.revision === revision && replica.ready),
      { timeoutMs: 60_000, intervalMs: 1_000, what: 'the fourth pdp in /ws/replicas at the deployed revision' },
    );

    // Asked directly, inside its container, it decides with the deployed set.
    const script = `fetch('http://127.0.0.1:8080/event', { method: 'POST', headers: { authorization: 'Bearer ${token}', 'content-type': 'application/json' }, body: process.argv[1] })
      .then(async (r) => console.log(JSON.stringify({ status: r.status, revision: r.headers.get('policy-revision'), decision: await r.json() })))`;
    const { stdout } = await project.compose(['exec', '-T', '--index=4', 'pdp', 'node', '-e', script, JSON.stringify(ANN)]);
    const direct = JSON.parse(stdout.trim().split('\n').pop()!) as { status: number; revision: string; decision: Decision };
    expect(direct.status).toBe(200);
    expect(Number(direct.revision)).toBe(revision);
    expect(direct.decision).toMatchObject({ eventAllowed: true, modifiers: [{ name: 'user', expression: '$.name.firstName' }] });

    // And the gateway sends it decisions: its address shows up as the upstream of /event requests.
    const address = Object.values(fourth.NetworkSettings.Networks)[0]!.IPAddress;
    await waitFor(
      async () => {
        const { stdout: logs } = await project.compose(['logs', '--no-color', 'gateway']);
        return logs.includes(`"upstream":"${address}:8080"`);
      },
      { timeoutMs: 60_000, intervalMs: 2_000, what: `an /event request answered by ${address}` },
    );
    await expectNoFailures(await load.stop(), 50);
  });

  it('rides out a NATS restart and a restart of both paps: changes still reach every pdp, decisions never stop', async () => {
    const load = steadyLoad(() => decideAnn(revision), allowedAnn);
    const pdps = (await runningPdps()).length;
    const allAt = (at: number) => async () => {
      const list = await replicas();
      return list.length >= pdps && list.every((replica) => replica.revision !== null && replica.revision >= at);
    };

    await project.compose(['restart', 'nats']);
    const revoked = await change('revoke');
    await waitFor(allAt(revoked), { timeoutMs: 120_000, intervalMs: 1_000, what: `every pdp at revision ${revoked} after the NATS restart` });
    const unmasked = (await (await decideAnn(revoked)).json()) as Decision;
    expect(unmasked).toMatchObject({ eventAllowed: true, modifiers: [] });

    await project.compose(['restart', 'pap']);
    await waitFor(async () => (await gateway('/ws/replicas')).status === 200, { timeoutMs: 120_000, intervalMs: 1_000, what: 'pap again' });
    const deployed = await change('deploy');
    await waitFor(allAt(deployed), { timeoutMs: 120_000, intervalMs: 1_000, what: `every pdp at revision ${deployed} after the pap restart` });
    const masked = await decideAnn(deployed);
    expect(maskedAnn(masked, await masked.json())).toBeUndefined();

    await expectNoFailures(await load.stop(), 100);
  });

  it('ends with down -v: no container and no volume of the project left', async () => {
    await project.compose(['down', '-v']);
    expect(await listContainers(project.name)).toEqual([]);
    const { stdout } = await project.compose(['ps', '-q']);
    expect(stdout.trim()).toBe('');
  });
});
