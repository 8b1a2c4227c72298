import { connect } from 'nats';
import { Client } from 'pg';
import { policySubjects } from '@custos/contracts';
import { startOwnPostgresFailover, startStack, TEST_NATS_URL, waitFor, clientToken, ADMIN_ID, ADMIN_SECRET, type OwnPostgresFailover, type RunningService, type Stack } from '@custos/test-kit';
import { StubPxp } from '../chaos/stub-pxp';
import { NAMESPACES, event, inhibitAll } from '../policies';

/**
 * Issue 23, the PostgreSQL half: auth, pap and two pdps on a primary with a synchronous standby (pg_auto_failover),
 * reached through one `DATABASE_URL` naming both nodes (service-kit's pool keeps to the writable one). Under a steady
 * load of pure decisions, history-recording decisions, decisions with a PXP execute, deploys/revokes and token
 * requests, the primary's node is killed (SIGKILL to its keeper and server) and the standby promoted. Afterwards:
 * pure decisions never failed; every history decision that was allowed is in the history (its record was
 * acknowledged before its answer); every execute of an answered decision reached the PXP; every acknowledged change
 * survived (pap's revision, every pdp at it) and decisions agree with the revision they name; history decisions,
 * pap and auth answered again without a restart.
 */
export interface FailoverOptions {
  /** Seconds of load before the kill. */
  warmupSeconds?: number;
  /** Operations of each kind to see succeed after the failover before the run ends. */
  afterCount?: number;
  log?: (line: string) => void;
}

export type LoadKind = 'pure' | 'history' | 'notify' | 'change' | 'token';

export interface FailoverReport {
  figures: Record<string, number | string>;
  /** Longest time without a successful answer, per kind of load, in ms (from the kill's neighbourhood mostly). */
  longestGapMs: Record<LoadKind, number>;
  errors: Record<string, number>;
  violations: string[];
}

const SOLUTION = 'acme';
const A = (action: string) => `urn:action:${SOLUTION}:${action}`;
/** Never reached: every inhibit of `counted` is the history failing closed. */
const NEVER = 1_000_000;
const TOGGLE_ID = `urn:policy:${SOLUTION}:toggle`;

const until = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function errorKind(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  if (cause?.code) return cause.code;
  const status = /^token request failed: (\d+)/.exec((error as Error).message)?.[1];
  if (status !== undefined) return `http ${status}`;
  return (error as Error).name || 'error';
}

export async function runPostgresFailover({ warmupSeconds = 5, afterCount = 5, log = () => undefined }: FailoverOptions = {}): Promise<FailoverReport> {
  let pg: OwnPostgresFailover | undefined;
  let stack: Stack | undefined;
  /** The load's loops run while this holds; a failure part-way must stop them too, or they outlive the test. */
  let running = false;
  const stub = await new StubPxp().start();
  try {
    const started = Date.now();
    pg = await startOwnPostgresFailover();
    log(`pg_auto_failover ready in ${Math.round((Date.now() - started) / 1000)} s: ${JSON.stringify(await pg.states())}`);
    const databaseUrl = pg.url('custos_failover');
    stack = await startStack({
      natsUrl: TEST_NATS_URL,
      replicas: 2,
      databaseUrl,
      extraEnv: { LOG_LEVEL: 'warn', PDP_PXP_LEASE_MS: '2000', PDP_PXP_POLL_MS: '250', PDP_PXP_ATTEMPTS: '8', PDP_PXP_BACKOFF_MS: '100' },
    });
    const { pap, pdps, auth } = stack;
    const token = await stack.adminToken();
    const headers = { Authorization: `Bearer ${token}` };
    const setup = async (method: string, path: string, body?: { json?: unknown; xml?: string }) => {
      const contentType = body?.json !== undefined ? 'application/json' : 'application/xml';
      const response = await fetch(`${pap.url}${path}`, {
        method,
        headers: { ...headers, ...(body ? { 'Content-Type': contentType } : {}) },
        body: body?.json !== undefined ? JSON.stringify(body.json) : body?.xml,
      });
      if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return Number(response.headers.get('policy-revision'));
    };
    await setup('POST', '/ws/component', {
      json: {
        id: { componentType: 'PXP', identifier: `urn:component:${SOLUTION}:pxp:stub` },
        urls: [stub.url],
        componentInterfaces: [{ type: 'InterfaceDescription', methodName: A('notify'), returnType: 'java.lang.Object', parameters: [] }],
      },
    });
    const policies: Array<[string, string]> = [
      [
        `urn:policy:${SOLUTION}:counted`,
        `<mechanism event="${A('counted')}">
          <if><greater><count><eventOccurrence event="${A('counted')}"/><when fixedTime="always"/></count><constant:number value="${NEVER}"/></greater>
            <then><inhibit reason="never"/></then></if>
          <else><allow/></else>
        </mechanism>`,
      ],
      [
        `urn:policy:${SOLUTION}:notify`,
        `<mechanism event="${A('notify')}">
          <if><constant:true/><then><allow/><execute action="${A('notify')}"><parameter:string name="seq"><event:string eventParameter="seq" default=""/></parameter:string></execute></then></if>
        </mechanism>`,
      ],
    ];
    let revision = 0;
    for (const [id, body] of policies) {
      await setup('POST', '/ws/policy', { xml: `<policy ${NAMESPACES} id="${id}">${body}</policy>` });
      revision = await setup('POST', `/ws/policy/${encodeURIComponent(id)}/deploy`);
    }
    await setup('POST', '/ws/policy', { xml: inhibitAll(SOLUTION, 'toggle', 'toggled') });
    for (const pdp of pdps) {
      await waitFor(async () => ((await (await fetch(`${pdp.url}/status`)).json()) as { revision: number }).revision >= revision, { timeoutMs: 30_000, what: 'the set on every pdp' });
    }

    // --- load -------------------------------------------------------------------------------------------------
    const violations: string[] = [];
    const errors: Record<string, number> = {};
    const countError = (what: string, kind: string) => (errors[`${what} ${kind}`] = (errors[`${what} ${kind}`] ?? 0) + 1);
    const lastSuccess: Record<LoadKind, number> = { pure: Date.now(), history: Date.now(), notify: Date.now(), change: Date.now(), token: Date.now() };
    const longestGapMs: Record<LoadKind, number> = { pure: 0, history: 0, notify: 0, change: 0, token: 0 };
    const succeeded = (kind: LoadKind) => {
      const now = Date.now();
      longestGapMs[kind] = Math.max(longestGapMs[kind], now - lastSuccess[kind]);
      lastSuccess[kind] = now;
      counts[kind]++;
      if (failover.at !== undefined) after[kind]++;
    };
    const counts: Record<LoadKind, number> = { pure: 0, history: 0, notify: 0, change: 0, token: 0 };
    const after: Record<LoadKind, number> = { pure: 0, history: 0, notify: 0, change: 0, token: 0 };
    /** When the standby was seen promoted: successes from then on count as recovered. */
    const failover: { at?: number } = {};
    running = true;
    let historyAllowed = 0;
    let historyClosed = 0;
    const answeredSeqs: string[] = [];
    const acked = new Map<number, boolean>();
    const toggles: Array<{ revision: number; allowed: boolean }> = [];
    let seq = 0;
    let toggledOn = false;

    const decide = async (pdp: RunningService, action: string, parameters: Array<{ name: string; value: unknown }> = []) => {
      const response = await fetch(`${pdp.url}/event`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: JSON.stringify(event(SOLUTION, action, parameters)),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await response.text();
      if (response.status !== 200) throw Object.assign(new Error(`${response.status} ${text.slice(0, 200)}`), { name: `http ${response.status}` });
      return { allowed: (JSON.parse(text) as { eventAllowed: boolean }).eventAllowed, revision: Number(response.headers.get('policy-revision')) };
    };
    const loop = (kind: LoadKind, step: () => Promise<void>, pauseMs = 0) =>
      (async () => {
        while (running) {
          try {
            await step();
          } catch (error) {
            countError(kind, errorKind(error));
          }
          if (pauseMs > 0) await until(pauseMs);
        }
      })();
    const load = [
      ...pdps.map((pdp) =>
        loop('pure', async () => {
          const answer = await decide(pdp, 'pure');
          if (!answer.allowed) violations.push('a pure decision was inhibited');
          succeeded('pure');
        }),
      ),
      ...pdps.map((pdp) =>
        loop('history', async () => {
          const answer = await decide(pdp, 'counted');
          if (answer.allowed) {
            historyAllowed++;
            succeeded('history');
          } else historyClosed++;
        }),
      ),
      ...pdps.map((pdp) =>
        loop('notify', async () => {
          const mine = `n${seq++}`;
          const answer = await decide(pdp, 'notify', [{ name: 'seq', value: mine }]);
          if (!answer.allowed) violations.push('a notify decision was inhibited');
          answeredSeqs.push(mine);
          succeeded('notify');
        }),
      ),
      ...pdps.map((pdp) =>
        loop('pure', async () => {
          toggles.push(await decide(pdp, 'toggled'));
        }, 20),
      ),
      loop(
        'change',
        async () => {
          const deployed = toggledOn;
          const response = deployed
            ? await fetch(`${pap.url}/ws/policy/${encodeURIComponent(TOGGLE_ID)}/revoke`, { headers, signal: AbortSignal.timeout(10_000) })
            : await fetch(`${pap.url}/ws/policy/${encodeURIComponent(TOGGLE_ID)}/deploy`, { method: 'POST', headers, signal: AbortSignal.timeout(10_000) });
          const text = await response.text();
          if (response.status !== 200) throw Object.assign(new Error(text), { name: `http ${response.status}` });
          acked.set(Number(response.headers.get('policy-revision')), !deployed);
          toggledOn = !deployed;
          succeeded('change');
        },
        200,
      ),
      loop(
        'token',
        async () => {
          await clientToken(auth.url, ADMIN_ID, ADMIN_SECRET);
          succeeded('token');
        },
        250,
      ),
    ];

    await until(warmupSeconds * 1000);
    const primary = await pg.primary();
    log(`killing the primary ${primary.name} (port ${primary.port}) under load: ${JSON.stringify(counts)}`);
    const killedAt = Date.now();
    await primary.kill();
    const promoted = await waitFor(
      async () => {
        const next = await pg?.primary(1000).catch(() => undefined);
        return next !== undefined && next.name !== primary.name ? next : undefined;
      },
      { timeoutMs: 90_000, intervalMs: 200, what: 'the standby promoted' },
    );
    const failedOverAt = Date.now();
    failover.at = failedOverAt;
    log(`${promoted.name} is primary ${failedOverAt - killedAt} ms after the kill`);
    try {
      await waitFor(() => (Object.keys(after) as LoadKind[]).every((kind) => after[kind] >= afterCount), { timeoutMs: 90_000, intervalMs: 100, what: 'every kind of load answered again' });
    } catch {
      violations.push(`not every kind of load came back after the failover: ${JSON.stringify(after)}`);
    }
    running = false;
    await Promise.all(load);
    log(`load stopped: ${JSON.stringify(counts)}; checking`);

    // --- checks ---------------------------------------------------------------------------------------------
    // A database that is away is a 503 (come back later), never a 500 (docs/api.md §5).
    const serverErrors = Object.entries(errors).filter(([key]) => key.endsWith(' http 500'));
    if (serverErrors.length > 0) violations.push(`answered 500 while the database failed over: ${JSON.stringify(Object.fromEntries(serverErrors))}`);
    const pureErrors = Object.entries(errors).filter(([key]) => key.startsWith('pure '));
    if (pureErrors.length > 0) violations.push(`pure decisions failed during the failover: ${JSON.stringify(Object.fromEntries(pureErrors))}`);
    const db = new Client({ connectionString: `postgres://postgres@127.0.0.1:${promoted.port}/custos_failover` });
    await db.connect();
    let recorded = 0;
    let papRevision = 0;
    try {
      recorded = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM pdp.history_events WHERE action = $1', [A('counted')])).rows[0]?.n ?? 0);
      papRevision = Number((await db.query<{ revision: string }>('SELECT revision FROM pap.state')).rows[0]?.revision ?? 0);
    } finally {
      await db.end();
    }
    if (recorded < historyAllowed) violations.push(`${historyAllowed} history decisions were allowed but only ${recorded} events are in the history`);
    const maxAcked = Math.max(0, ...acked.keys());
    if (papRevision < maxAcked) violations.push(`pap's revision is ${papRevision} after the failover, below the acknowledged ${maxAcked}`);
    for (const [index, pdp] of pdps.entries()) {
      try {
        await waitFor(async () => ((await (await fetch(`${pdp.url}/status`)).json()) as { revision: number }).revision >= maxAcked, { timeoutMs: 30_000, what: `pdp ${index} at ${maxAcked}` });
      } catch {
        violations.push(`pdp ${index} never reached the acknowledged revision ${maxAcked}`);
      }
    }
    // What each revision did to the toggled policy, from the change stream (a deploy whose answer was lost counts too).
    const toggleAt = new Map<number, boolean | undefined>();
    const nc = await connect({ servers: TEST_NATS_URL });
    try {
      const stream = policySubjects(stack.natsPrefix).stream;
      const jsm = await nc.jetstreamManager();
      const info = await jsm.streams.info(stream);
      for (let sequence = info.state.first_seq; sequence <= info.state.last_seq; sequence++) {
        const message = await jsm.streams.getMessage(stream, { seq: sequence });
        const change = JSON.parse(new TextDecoder().decode(message.data)) as { revision: number; type: string; policy?: { id: string }; policyId?: string };
        const touches = change.type === 'deploy' ? change.policy?.id === TOGGLE_ID : change.type === 'revoke' ? change.policyId === TOGGLE_ID : false;
        toggleAt.set(change.revision, touches ? change.type === 'deploy' : undefined);
      }
    } finally {
      await nc.close();
    }
    for (const rev of acked.keys()) if (!toggleAt.has(rev)) violations.push(`acknowledged revision ${rev} never reached the change stream`);
    const stateAt = (at: number) => {
      let state = false;
      for (const [rev, deployed] of [...toggleAt].sort((a, b) => a[0] - b[0])) if (rev <= at && deployed !== undefined) state = deployed;
      return state;
    };
    const wrong = toggles.filter((answer) => answer.allowed === stateAt(answer.revision)).length;
    if (wrong > 0) violations.push(`${wrong} of ${toggles.length} decisions of \`toggled\` disagree with the revision they name`);
    const undelivered = () => answeredSeqs.filter((s) => !stub.bySeq.has(s));
    try {
      await waitFor(() => undelivered().length === 0, { timeoutMs: 60_000, what: 'every execute delivered' });
    } catch {
      violations.push(`${undelivered().length} executes of answered decisions never reached the PXP (e.g. ${undelivered().slice(0, 5).join(', ')})`);
    }
    return {
      figures: {
        'failover (kill → standby promoted), ms': failedOverAt - killedAt,
        'decisions answered': counts.pure + counts.history + historyClosed + counts.notify + toggles.length,
        'pure decisions': counts.pure,
        'history decisions allowed (recorded)': historyAllowed,
        'history decisions failed closed': historyClosed,
        'history events recorded': recorded,
        'notify decisions (execute required)': counts.notify,
        'executes delivered': stub.deliveries,
        'changes acknowledged': acked.size,
        'tokens issued': counts.token,
        lost: violations.filter((v) => /never|below|only/.test(v)).length,
        wrong: violations.filter((v) => !/never|below|only/.test(v)).length,
      },
      longestGapMs,
      errors,
      violations,
    };
  } finally {
    running = false;
    await stack?.stop().catch(() => undefined);
    await pg?.destroy().catch(() => undefined);
    await stub.stop();
  }
}
