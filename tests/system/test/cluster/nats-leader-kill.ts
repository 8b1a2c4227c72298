import { policySubjects } from '@custos/contracts';
import { startOwnNatsCluster, startStack, waitFor, type OwnNatsCluster, type RunningService, type Stack } from '@custos/test-kit';
import { event, inhibitAll } from '../policies';

/**
 * Issue 23, the NATS half: pap and three pdps on a three-node JetStream cluster; a policy is deployed and revoked one
 * change after another while workers ask every pdp for decisions, and the server leading the change stream is killed
 * (SIGKILL) in the middle. Every change is timed from pap's answer until every pdp decides by it (a decision sent with
 * `Min-Policy-Revision`, as the propagation benchmark does) in three phases: before the kill, right after it (the
 * stream elects a new leader meanwhile) and after the killed server came back and caught up. Afterwards: every
 * acknowledged change is in the stream exactly once, every pdp reached the last one, every decision agreed with the
 * revision it named and no pdp went back, and every copy of the stream holds all of it.
 */
export interface LeaderKillOptions {
  /** Changes timed in each phase. */
  changesPerPhase: number;
  log?: (line: string) => void;
}

export type Phase = 'before' | 'during' | 'after';

export interface LeaderKillReport {
  /** Milliseconds from pap's answer until every pdp decided by the change, per phase. */
  propagation: Record<Phase, number[]>;
  /** What pap's deploy/revoke took, per phase. */
  papAnswer: Record<Phase, number[]>;
  killedLeader: string;
  newLeader: string;
  streamReplicas: number;
  decisions: number;
  errors: Record<string, number>;
  violations: string[];
  lastRevision: number;
}

const SOLUTION = 'acme';
const TOGGLE_ID = `urn:policy:${SOLUTION}:toggle`;
const WORKERS = 4;

async function json<T>(response: Response): Promise<T> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.status} ${text}`);
  return JSON.parse(text) as T;
}

export async function runNatsLeaderKill({ changesPerPhase, log = () => undefined }: LeaderKillOptions): Promise<LeaderKillReport> {
  let cluster: OwnNatsCluster | undefined;
  let stack: Stack | undefined;
  /** The load's loops run while this holds; a failure part-way must stop them too, or they outlive the test. */
  let running = false;
  try {
    cluster = await startOwnNatsCluster({ size: 3 });
    stack = await startStack({ natsUrl: cluster.url, replicas: 3 });
    const token = await stack.adminToken();
    const { pap, pdps } = stack;
    const stream = policySubjects(stack.natsPrefix).stream;
    const headers = { Authorization: `Bearer ${token}` };
    log(`cluster ${cluster.url}; pap and ${pdps.length} pdps on it`);

    const added = await fetch(`${pap.url}/ws/policy`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/xml' },
      body: inhibitAll(SOLUTION, 'toggle', 'toggled'),
    });
    if (added.status >= 300) throw new Error(`adding the policy: ${added.status} ${await added.text()}`);

    const violations: string[] = [];
    const errors: Record<string, number> = {};
    const countError = (kind: string) => (errors[kind] = (errors[kind] ?? 0) + 1);
    /** Revision → whether the toggled policy is deployed from it on (only changes this run acknowledged). */
    const acked = new Map<number, boolean>();
    const answers: Array<{ pdp: number; revision: number; allowed: boolean }> = [];
    let deployed = false;

    const decide = async (pdp: RunningService, minRevision?: number) => {
      const response = await fetch(`${pdp.url}/event`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json', ...(minRevision === undefined ? {} : { 'Min-Policy-Revision': String(minRevision) }) },
        body: JSON.stringify(event(SOLUTION, 'toggled')),
        signal: AbortSignal.timeout(15_000),
      });
      const answer = await json<{ eventAllowed: boolean }>(response);
      return { revision: Number(response.headers.get('policy-revision')), allowed: answer.eventAllowed };
    };

    /**
     * A decision by revision `revision` at least: a pdp waits up to 2 s for it and then answers 503
     * `policy_revision_unavailable` (docs/api.md); while the stream elects a leader a change may take longer, so the
     * question is asked again until answered (within a deadline): the time measured is until it was.
     */
    const decideBy = async (pdp: RunningService, revision: number) => {
      const deadline = Date.now() + 60_000;
      for (;;) {
        try {
          return await decide(pdp, revision);
        } catch (error) {
          if (!/policy_revision_unavailable/.test((error as Error).message) || Date.now() > deadline) throw error;
          countError('Min-Policy-Revision not active within 2 s (asked again)');
        }
      }
    };

    /** One deploy or revoke, then every pdp asked to decide by it. */
    const change = async (): Promise<{ papMs: number; allMs: number }> => {
      const sent = performance.now();
      const response = deployed
        ? await fetch(`${pap.url}/ws/policy/${encodeURIComponent(TOGGLE_ID)}/revoke`, { headers })
        : await fetch(`${pap.url}/ws/policy/${encodeURIComponent(TOGGLE_ID)}/deploy`, { method: 'POST', headers });
      await json<unknown>(response);
      const answered = performance.now();
      const revision = Number(response.headers.get('policy-revision'));
      deployed = !deployed;
      acked.set(revision, deployed);
      const decided = await Promise.all(pdps.map((pdp) => decideBy(pdp, revision)));
      decided.forEach((decision, index) => {
        answers.push({ pdp: index, ...decision });
        if (decision.revision < revision) violations.push(`pdp ${index} answered revision ${decision.revision} to Min-Policy-Revision ${revision}`);
      });
      return { papMs: answered - sent, allMs: performance.now() - answered };
    };

    running = true;
    let decisions = 0;
    // Each worker asks one pdp, one decision after another: the revisions it is answered never go back.
    const worker = async (index: number) => {
      const pdp = pdps[index % pdps.length] as RunningService;
      let floor = 0;
      while (running) {
        try {
          const decision = await decide(pdp);
          if (decision.revision < floor) violations.push(`pdp ${index % pdps.length} answered revision ${decision.revision} after ${floor}`);
          floor = Math.max(floor, decision.revision);
          answers.push({ pdp: index % pdps.length, ...decision });
          decisions++;
        } catch (error) {
          countError(`decision ${(error as Error).name}: ${(error as Error).message.slice(0, 60)}`);
        }
      }
    };
    const load = Array.from({ length: WORKERS }, (_, index) => worker(index));

    const propagation: Record<Phase, number[]> = { before: [], during: [], after: [] };
    const papAnswer: Record<Phase, number[]> = { before: [], during: [], after: [] };
    const phase = async (name: Phase) => {
      for (let n = 0; n < changesPerPhase; n++) {
        const { papMs, allMs } = await change();
        papAnswer[name].push(papMs);
        propagation[name].push(allMs);
      }
    };

    await phase('before');
    const leader = await cluster.streamLeader(stream);
    const nc = await cluster.connect();
    let streamReplicas: number;
    try {
      streamReplicas = (await (await nc.jetstreamManager()).streams.info(stream)).config.num_replicas;
    } finally {
      await nc.close();
    }
    log(`stream ${stream}: ${streamReplicas} replicas, leader ${leader.name}; killing it`);
    await leader.kill();
    await phase('during');
    const newLeader = await cluster.streamLeader(stream, { not: leader.name });
    log(`new leader ${newLeader.name}; restarting ${leader.name}`);
    await leader.start();
    // The restarted server is a follower again once it holds the whole stream.
    await waitFor(
      async () => {
        const observer = await cluster?.connect();
        try {
          const info = await (await observer?.jetstreamManager())?.streams.info(stream);
          const replica = info?.cluster?.replicas?.find((peer) => peer.name === leader.name);
          return replica?.current === true || info?.cluster?.leader === leader.name;
        } finally {
          await observer?.close();
        }
      },
      { timeoutMs: 60_000, intervalMs: 200, what: `${leader.name} back in the stream's group and current` },
    );
    await phase('after');
    running = false;
    await Promise.all(load);

    // --- checks ---------------------------------------------------------------------------------------------
    const lastAcked = Math.max(...acked.keys());
    for (const [index, pdp] of pdps.entries()) {
      const status = await json<{ revision: number }>(await fetch(`${pdp.url}/status`));
      if (status.revision < lastAcked) violations.push(`pdp ${index} is at revision ${status.revision}, not the last acknowledged ${lastAcked}`);
    }
    // Each acknowledged change is in the stream exactly once, and so is every revision up to the last one.
    const seen = new Map<number, number>();
    const observer = await cluster.connect();
    let lastRevision = 0;
    try {
      const jsm = await observer.jetstreamManager();
      const info = await jsm.streams.info(stream);
      for (let sequence = info.state.first_seq; sequence <= info.state.last_seq; sequence++) {
        const message = await jsm.streams.getMessage(stream, { seq: sequence });
        const { revision } = JSON.parse(new TextDecoder().decode(message.data)) as { revision: number };
        seen.set(revision, (seen.get(revision) ?? 0) + 1);
        lastRevision = Math.max(lastRevision, revision);
      }
      // Every copy holds all of it: the leader's sequence, and followers current with nothing to catch up.
      for (const peer of info.cluster?.replicas ?? []) {
        if (!peer.current || (peer.lag ?? 0) > 0) violations.push(`stream copy on ${peer.name} is behind (current ${peer.current}, lag ${peer.lag ?? 0})`);
      }
      if ((info.cluster?.replicas?.length ?? 0) !== streamReplicas - 1) {
        violations.push(`the stream has ${info.cluster?.replicas?.length ?? 0} followers, expected ${streamReplicas - 1}`);
      }
    } finally {
      await observer.close();
    }
    for (const revision of acked.keys()) if (!seen.has(revision)) violations.push(`acknowledged revision ${revision} is missing from the stream`);
    for (const [revision, copies] of seen) if (copies > 1) violations.push(`revision ${revision} is in the stream ${copies} times`);
    for (let revision = 1; revision <= lastRevision; revision++) if (!seen.has(revision)) violations.push(`revision ${revision} is missing from the stream`);
    // Every decision agrees with the revision it names.
    const stateAt = (revision: number) => {
      let state = false;
      for (const [at, deployedThen] of [...acked].sort((a, b) => a[0] - b[0])) if (at <= revision) state = deployedThen;
      return state;
    };
    let wrong = 0;
    for (const answer of answers) if (answer.allowed === stateAt(answer.revision)) wrong++;
    if (wrong > 0) violations.push(`${wrong} of ${answers.length} decisions disagree with the revision they name`);
    return {
      propagation,
      papAnswer,
      killedLeader: leader.name,
      newLeader: newLeader.name,
      streamReplicas,
      decisions,
      errors,
      violations,
      lastRevision,
    };
  } finally {
    running = false;
    await stack?.stop().catch(() => undefined);
    await cluster?.destroy().catch(() => undefined);
  }
}
