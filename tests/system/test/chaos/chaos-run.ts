import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { connect } from 'nats';
import { Client } from 'pg';
import { policySubjects } from '@custos/contracts';
import {
  ADMIN_ID,
  ADMIN_SECRET,
  clientToken,
  freePort,
  startOwnNatsCluster,
  startOwnNatsServer,
  startOwnPostgresFailover,
  startService,
  uniqueNatsPrefix,
  waitFor,
  type OwnNatsCluster,
  type OwnNatsServer,
  type OwnPostgresFailover,
  type RunningService,
  type ServiceName,
} from '@custos/test-kit';
import { event, inhibitAll } from '../policies';
import { startOwnPostgres, type OwnPostgres } from './postgres-cluster';

/**
 * The chaos run of issue 14: 3 pdps, 2 paps and auth on a private PostgreSQL cluster and a private NATS, under a
 * steady load of decisions (pure, history-limited, with PXP executes to a stub PXP this process runs) and a
 * deploy/revoke every few hundred ms, while pdps and paps are killed with SIGKILL and NATS and PostgreSQL are
 * restarted (PostgreSQL crashed: `pg_ctl -m immediate`), one fault at a time, repeatedly. Afterwards every promise
 * of the contract is checked against what was answered; `violations` lists every broken one.
 */
export interface ChaosOptions {
  /** How long faults are injected under load. */
  seconds: number;
  /** Progress lines. */
  log?: (line: string) => void;
  /**
   * The clustered form (issue 23): a three-node NATS cluster in place of the one server and pg_auto_failover (a
   * primary and its synchronous standby) in place of the one PostgreSQL; the faults kill the change stream's NATS
   * leader and fail the PostgreSQL primary over, in place of restarting either.
   */
  cluster?: boolean;
}

export interface ChaosReport {
  figures: Record<string, number | string>;
  errors: Record<string, number>;
  violations: string[];
}

const NS = [
  'xmlns="http://www.mydata-control.de/4.0/mydataLanguage"',
  'xmlns:constant="http://www.mydata-control.de/4.0/constant"',
  'xmlns:event="http://www.mydata-control.de/4.0/event"',
  'xmlns:parameter="http://www.mydata-control.de/4.0/parameter"',
].join(' ');
const A = (name: string) => `urn:action:acme:${name}`;
/** "At most LIMIT" for `limited`: the run makes many more attempts than this. */
const LIMIT = 40;
const TIMER_ID = 'urn:timer:acme:beat';
/** Longer than any single outage the run causes, so catch-up `last` leaves no tick missed. */
const TIMER_PERIOD_MS = 5000;
/** The clustered form's longest outage is a PostgreSQL failover (about 10 s on a busy machine): a longer period. */
const CLUSTER_TIMER_PERIOD_MS = 15_000;
const TOGGLE_ID = 'urn:policy:acme:toggle';
const WORKERS = 6;
const TOGGLE_EVERY_MS = 300;

interface Slot {
  name: ServiceName;
  port: number;
  service: RunningService;
  /** Counts restarts: each instance must never answer a revision below one it answered before. */
  instance: number;
  down: boolean;
  rss: Map<number, { first: number; last: number; startedAt: number; endedAt?: number }>;
}

interface ToggleAnswer {
  revision: number;
  allowed: boolean;
}

/** A PXP that answers true and remembers every delivery by its `seq` parameter and idempotency key. */
export class StubPxp {
  readonly bySeq = new Map<string, number>();
  readonly keys = new Set<string>();
  readonly tickKeys = new Set<string>();
  deliveries = 0;
  /** Deliveries without an idempotency key: executes a pdp could not store (PostgreSQL down), sent from memory. */
  unkeyed = 0;
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.deliveries++;
        const key = req.headers['idempotency-key'];
        if (typeof key === 'string') this.keys.add(key);
        else this.unkeyed++;
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { parameters?: Array<{ name: string; value: { value: unknown } }> };
          const seq = body.parameters?.find((p) => p.name === 'seq')?.value.value;
          if (typeof seq === 'string') {
            this.bySeq.set(seq, (this.bySeq.get(seq) ?? 0) + 1);
            if (seq === 'tick' && typeof key === 'string') this.tickKeys.add(key);
          }
        } catch {
          // counted as a delivery all the same
        }
        res.setHeader('Content-Type', 'application/json');
        res.end('true');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

const pick = <T>(items: readonly T[]): T | undefined => items[Math.floor(Math.random() * items.length)];
const until = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function rssOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

function errorKind(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  if (cause?.code) return cause.code;
  if ((error as Error).name === 'TimeoutError') return 'timeout';
  return (error as Error).name || 'error';
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => undefined);
  const timerPeriodMs = options.cluster ? CLUSTER_TIMER_PERIOD_MS : TIMER_PERIOD_MS;
  const violations: string[] = [];
  const errors: Record<string, number> = {};
  const countError = (what: string, kind: string) => {
    const key = `${what} ${kind}`;
    errors[key] = (errors[key] ?? 0) + 1;
  };
  const cleanups: Array<() => Promise<unknown>> = [];
  let pg: OwnPostgres | undefined;
  let nats: OwnNatsServer | undefined;
  let natsCluster: OwnNatsCluster | undefined;
  let pgFailover: OwnPostgresFailover | undefined;
  const stub = await new StubPxp().start();
  cleanups.push(() => stub.stop());
  try {
    if (options.cluster) {
      [natsCluster, pgFailover] = await Promise.all([startOwnNatsCluster({ size: 3 }), startOwnPostgresFailover()]);
    } else {
      pg = await startOwnPostgres();
      nats = await startOwnNatsServer();
    }
    const databaseUrl = pgFailover?.url('custos_chaos') ?? pg?.url('custos_chaos') ?? '';
    const natsUrl = natsCluster?.url ?? nats?.url ?? '';
    const authPort = await freePort();
    const prefix = uniqueNatsPrefix();
    const env: Record<string, string> = {
      DATABASE_URL: databaseUrl,
      NATS_URL: natsUrl,
      NATS_PREFIX: prefix,
      AUTH_URL: `http://127.0.0.1:${authPort}`,
      BOOTSTRAP_CLIENT_ID: ADMIN_ID,
      BOOTSTRAP_CLIENT_SECRET: ADMIN_SECRET,
      LOG_LEVEL: 'warn',
      PDP_RESYNC_INTERVAL_MS: '5000',
      PDP_PXP_LEASE_MS: '2000',
      PDP_PXP_POLL_MS: '250',
      PDP_PXP_ATTEMPTS: '8',
      PDP_PXP_BACKOFF_MS: '100',
      PDP_TIMER_CHECK_MS: '500',
      PDP_TIMER_LEASE_MS: '3000',
      PDP_TIMER_CATCH_UP: 'last',
    };
    const portVariable: Record<ServiceName, string> = { 'auth-service': 'AUTH_PORT', 'pap-service': 'PAP_PORT', 'pdp-service': 'PDP_PORT' };
    const slots: Slot[] = [];
    /** Processes this run killed; any other exit is a crash of the service. */
    const killed = new Set<number>();
    let stopping = false;
    const launch = async (name: ServiceName, port?: number): Promise<Slot> => {
      const chosen = port ?? (await freePort());
      const service = await startService(name, { ...env, [portVariable[name]]: String(chosen) }, { readyTimeoutMs: 90_000 });
      service.process.once('exit', (code, signal) => {
        if (stopping || killed.has(service.process.pid ?? -1)) return;
        violations.push(`${name} :${chosen} exited by itself (${code ?? signal}): ${service.output().slice(-3000)}`);
        log(`${name} :${chosen} exited by itself (${code ?? signal})`);
      });
      return { name, port: chosen, service, instance: 0, down: false, rss: new Map() };
    };
    cleanups.push(() => Promise.all(slots.map((slot) => slot.service.kill())));

    const auth = await launch('auth-service', authPort);
    slots.push(auth);
    const paps = [await launch('pap-service'), await launch('pap-service')];
    slots.push(...paps);
    const pdps = await Promise.all([0, 1, 2].map(() => launch('pdp-service')));
    slots.push(...pdps);
    log(`started: postgres ${databaseUrl}, nats ${natsUrl}, auth, 2 paps, 3 pdps`);
    const token = await clientToken(auth.service.url, ADMIN_ID, ADMIN_SECRET);

    // --- the deployed set -------------------------------------------------------------------------------------
    const papCall = async (method: string, path: string, body?: { json?: unknown; xml?: string }) => {
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
    const setup = async (method: string, path: string, body?: { json?: unknown; xml?: string }) => {
      const answer = await papCall(method, path, body);
      if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.body}`);
      return answer;
    };
    await setup('POST', '/ws/component', {
      json: {
        id: { componentType: 'PXP', identifier: 'urn:component:acme:pxp:stub' },
        urls: [stub.url],
        componentInterfaces: [{ type: 'InterfaceDescription', methodName: A('notify'), returnType: 'java.lang.Object', parameters: [] }],
      },
    });
    const policies: Array<[string, string]> = [
      [
        'urn:policy:acme:limit',
        `<mechanism event="${A('limited')}">
          <if><greater><count><eventOccurrence event="${A('limited')}"/><when fixedTime="always"/></count><constant:number value="${LIMIT}"/></greater>
            <then><inhibit reason="limit reached"/></then></if>
          <else><allow/></else>
        </mechanism>`,
      ],
      [
        'urn:policy:acme:notify',
        `<mechanism event="${A('notify')}">
          <if><constant:true/><then><allow/><execute action="${A('notify')}"><parameter:string name="seq"><event:string eventParameter="seq" default=""/></parameter:string></execute></then></if>
        </mechanism>`,
      ],
      [
        'urn:policy:acme:on-tick',
        `<mechanism event="${A('tick')}">
          <if><constant:true/><then><allow/></then></if>
          <execute action="${A('notify')}"><parameter:string name="seq" value="tick"/></execute>
        </mechanism>`,
      ],
    ];
    for (const [id, body] of policies) {
      await setup('POST', '/ws/policy', { xml: `<policy ${NS} id="${id}">${body}</policy>` });
      await setup('POST', `/ws/policy/${id}/deploy`);
    }
    await setup('POST', '/ws/policy', { xml: inhibitAll('acme', 'toggle', 'toggled') });
    await setup('POST', '/ws/timer', {
      xml: `<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer" id="${TIMER_ID}" cron="*/${timerPeriodMs / 1000} * * * * ?"><event action="${A('tick')}"/></timer>`,
    });
    const timerDeployed = await setup('POST', `/ws/timer/${TIMER_ID}/deploy`);
    for (const pdp of pdps) {
      await waitFor(async () => ((await (await fetch(`${pdp.service.url}/status`)).json()) as { revision: number }).revision >= timerDeployed.revision, {
        timeoutMs: 30_000,
        what: 'the set on every pdp',
      });
    }

    // --- load, toggling, faults -----------------------------------------------------------------------------
    let running = true;
    const acked: number[] = [];
    const toggles: ToggleAnswer[] = [];
    const answeredSeqs: string[] = [];
    const decisions: Record<string, number> = {};
    let limitAllowed = 0;
    let seq = 0;
    const maxAnswered = new Map<string, number>();
    /** Longest time without a successful answer, per service, over the whole run (faults included). */
    const gaps = { pdp: { last: 0, longest: 0 }, pap: { last: 0, longest: 0 } };
    const answeredBy = (service: keyof typeof gaps) => {
      const now = Date.now();
      const gap = gaps[service];
      if (gap.last > 0) gap.longest = Math.max(gap.longest, now - gap.last);
      gap.last = now;
    };

    const decideOnce = async () => {
      const slot = pick(pdps.filter((candidate) => !candidate.down));
      if (slot === undefined) return until(20);
      const kind = pick(['pure', 'toggled', 'limited', 'notify'] as const) ?? 'pure';
      const instanceKey = `${slot.port}#${slot.instance}`;
      const floor = maxAnswered.get(instanceKey) ?? -1;
      const mySeq = kind === 'notify' ? `n${seq++}` : undefined;
      try {
        const response = await fetch(`${slot.service.url}/event`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(event('acme', kind, mySeq === undefined ? [] : [{ name: 'seq', value: mySeq }])),
          signal: AbortSignal.timeout(10_000),
        });
        const text = await response.text();
        if (response.status !== 200) {
          countError('decision', String(response.status));
          return;
        }
        const answer = JSON.parse(text) as { eventAllowed: boolean };
        const revision = Number(response.headers.get('policy-revision'));
        decisions[kind] = (decisions[kind] ?? 0) + 1;
        answeredBy('pdp');
        if (revision < floor) violations.push(`pdp :${slot.port} answered revision ${revision} after it had answered ${floor}`);
        maxAnswered.set(instanceKey, Math.max(floor, revision, maxAnswered.get(instanceKey) ?? -1));
        if (kind === 'pure' && !answer.eventAllowed) violations.push(`a pure decision was inhibited at revision ${revision}`);
        if (kind === 'notify') {
          if (!answer.eventAllowed) violations.push(`a notify decision was inhibited at revision ${revision}`);
          if (mySeq !== undefined) answeredSeqs.push(mySeq);
        }
        if (kind === 'toggled') toggles.push({ revision, allowed: answer.eventAllowed });
        if (kind === 'limited' && answer.eventAllowed) limitAllowed++;
      } catch (error) {
        countError('decision', errorKind(error));
      }
    };
    const worker = async () => {
      while (running) await decideOnce();
    };

    const toggler = async () => {
      let deployed = false;
      while (running) {
        const started = Date.now();
        try {
          const answer = deployed
            ? await papCall('GET', `/ws/policy/${TOGGLE_ID}/revoke`)
            : await papCall('POST', `/ws/policy/${TOGGLE_ID}/deploy`);
          if (answer.status === 200 && Number.isInteger(answer.revision)) {
            acked.push(answer.revision);
            answeredBy('pap');
            // `false` means it already was so (a call whose answer was lost had committed): the state is known now.
            deployed = !deployed;
          } else {
            countError('deploy/revoke', String(answer.status));
          }
        } catch (error) {
          countError('deploy/revoke', errorKind(error));
        }
        await until(Math.max(0, TOGGLE_EVERY_MS - (Date.now() - started)));
      }
    };

    const sampler = setInterval(() => {
      for (const slot of pdps) {
        if (slot.down) continue;
        const rss = rssOf(slot.service.process.pid);
        if (rss === undefined) continue;
        const seen = slot.rss.get(slot.instance);
        if (seen === undefined) slot.rss.set(slot.instance, { first: rss, last: rss, startedAt: Date.now() });
        else seen.last = rss;
      }
    }, 2000);
    cleanups.push(async () => clearInterval(sampler));

    const faults: Record<string, number> = options.cluster
      ? { 'kill pdp': 0, 'kill pap': 0, 'kill nats stream leader': 0, 'fail over postgres': 0 }
      : { 'kill pdp': 0, 'kill pap': 0, 'restart nats': 0, 'restart postgres': 0 };
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
    const inject = async (fault: string) => {
      const started = Date.now();
      if (fault === 'kill pdp') await restart(pick(pdps) ?? pdps[0] ?? auth);
      if (fault === 'kill pap') await restart(pick(paps) ?? paps[0] ?? auth);
      if (fault === 'restart nats') {
        await nats?.stop();
        await nats?.start();
      }
      if (fault === 'restart postgres') {
        await pg?.crash();
        await pg?.start();
      }
      if (fault === 'kill nats stream leader' && natsCluster) {
        const stream = policySubjects(prefix).stream;
        const leader = await natsCluster.streamLeader(stream);
        await leader.kill();
        const next = await natsCluster.streamLeader(stream, { not: leader.name });
        log(`nats: ${leader.name} killed, ${next.name} leads the stream`);
        await leader.start();
      }
      if (fault === 'fail over postgres' && pgFailover) {
        const failover = pgFailover;
        const primary = await failover.primary();
        await primary.kill();
        const promoted = await waitFor(
          async () => {
            const next = await failover.primary(1000).catch(() => undefined);
            return next !== undefined && next.name !== primary.name ? next : undefined;
          },
          { timeoutMs: 90_000, intervalMs: 200, what: 'the standby promoted' },
        );
        log(`postgres: ${primary.name} killed, ${promoted.name} promoted after ${Date.now() - started} ms`);
        // The old primary comes back as the new one's standby (the next failover needs one).
        await primary.start();
        await failover.settled(120_000);
      }
      faults[fault] = (faults[fault] ?? 0) + 1;
      log(`${fault}: back after ${Date.now() - started} ms`);
    };

    const startedAt = Date.now();
    const load = [...Array.from({ length: WORKERS }, worker), toggler()];
    const kinds = Object.keys(faults);
    while (Date.now() - startedAt < options.seconds * 1000) {
      // Every kind of fault once per round, in a random order.
      const round = [...kinds].sort(() => Math.random() - 0.5);
      for (const fault of round) {
        if (Date.now() - startedAt >= options.seconds * 1000) break;
        await inject(fault);
        // Load runs undisturbed for a moment between faults.
        await until(1000 + Math.random() * 1500);
      }
    }
    running = false;
    await Promise.all(load);
    const chaosEndedAt = Date.now();
    log(`faults over after ${Math.round((chaosEndedAt - startedAt) / 1000)} s; checking`);

    // --- checks ---------------------------------------------------------------------------------------------
    // 1. Every change pap acknowledged reached every live replica.
    const maxAcked = Math.max(0, ...acked);
    for (const pdp of pdps) {
      try {
        await waitFor(async () => ((await (await fetch(`${pdp.service.url}/status`)).json()) as { revision: number }).revision >= maxAcked, {
          timeoutMs: 30_000,
          what: `pdp :${pdp.port} at revision ${maxAcked}`,
        });
      } catch {
        const status = await fetch(`${pdp.service.url}/status`).then((r) => r.text()).catch((error: unknown) => String(error));
        violations.push(`pdp :${pdp.port} never reached acknowledged revision ${maxAcked}: ${status}`);
        log(`pdp :${pdp.port} output:\n${pdp.service.output().slice(-6000)}`);
      }
    }
    // The stream is the record of every change: each acknowledged one is in it, and it says what each revision held.
    const toggleAt = new Map<number, boolean | undefined>();
    let resyncs = 0;
    const observer = await connect({ servers: natsUrl.split(',') });
    try {
      const subjects = policySubjects(prefix);
      const jsm = await observer.jetstreamManager();
      const info = await jsm.streams.info(subjects.stream);
      for (let sequence = info.state.first_seq; sequence <= info.state.last_seq; sequence++) {
        const message = await jsm.streams.getMessage(subjects.stream, { seq: sequence });
        const change = JSON.parse(new TextDecoder().decode(message.data)) as { revision: number; type: string; policy?: { id: string }; policyId?: string };
        if (toggleAt.has(change.revision)) continue;
        if (change.type === 'resync') resyncs++;
        const touches = change.type === 'deploy' ? change.policy?.id === TOGGLE_ID : change.type === 'revoke' ? change.policyId === TOGGLE_ID : false;
        toggleAt.set(change.revision, touches ? change.type === 'deploy' : undefined);
      }
    } finally {
      await observer.close();
    }
    for (const revision of acked) if (!toggleAt.has(revision)) violations.push(`acknowledged revision ${revision} is missing from the change stream`);
    const lastRevision = Math.max(0, ...toggleAt.keys());
    for (let revision = 1; revision <= lastRevision; revision++) if (!toggleAt.has(revision)) violations.push(`revision ${revision} is missing from the change stream`);
    // 2. Every decision agrees with the revision it names.
    const deployedAt: boolean[] = [];
    let state = false;
    for (let revision = 0; revision <= lastRevision; revision++) {
      const change = toggleAt.get(revision);
      if (change !== undefined) state = change;
      deployedAt[revision] = state;
    }
    let wrong = 0;
    for (const answer of toggles) {
      if (answer.revision > lastRevision) {
        violations.push(`a decision named revision ${answer.revision}, beyond the last one published (${lastRevision})`);
        continue;
      }
      if (resyncs === 0 && answer.allowed === deployedAt[answer.revision]) wrong++;
    }
    if (wrong > 0) violations.push(`${wrong} decisions of \`toggled\` disagree with the revision they name`);
    // 3. No limit overshot.
    if (limitAllowed > LIMIT) violations.push(`\`limited\` was allowed ${limitAllowed} times; the policy allows at most ${LIMIT}`);
    // 4. Every execute of an answered decision reached the PXP.
    const undelivered = () => answeredSeqs.filter((s) => !stub.bySeq.has(s));
    try {
      await waitFor(() => undelivered().length === 0, { timeoutMs: 30_000, what: 'every execute delivered' });
    } catch {
      violations.push(`${undelivered().length} executes of answered decisions never reached the PXP (e.g. ${undelivered().slice(0, 5).join(', ')})`);
    }
    // 5. Every due tick fired exactly once (one row, done), and ran its execute.
    // A plain client takes one host: in the clustered form, the primary's.
    const primaryPort = pgFailover ? (await pgFailover.primary()).port : undefined;
    const db = new Client({ connectionString: primaryPort === undefined ? databaseUrl : `postgres://postgres@127.0.0.1:${primaryPort}/custos_chaos` });
    await db.connect();
    let ticksFired = 0;
    try {
      const rows = (
        await db.query<{ scheduled_at: string; done_at: string | null }>('SELECT scheduled_at, done_at FROM pdp.timer_ticks WHERE timer_id = $1 ORDER BY scheduled_at', [TIMER_ID])
      ).rows.map((row) => ({ at: Number(row.scheduled_at), done: row.done_at !== null }));
      const byTime = new Map(rows.map((row) => [row.at, row]));
      const first = rows[0]?.at;
      const lastDue = chaosEndedAt - 2 * timerPeriodMs;
      if (first === undefined) violations.push('the timer never fired');
      for (let at = first ?? Infinity; at <= lastDue; at += timerPeriodMs) {
        const row = byTime.get(at);
        if (row === undefined) violations.push(`timer tick ${new Date(at).toISOString()} never fired`);
        else if (!row.done) violations.push(`timer tick ${new Date(at).toISOString()} was claimed but not finished`);
      }
      ticksFired = rows.filter((row) => row.done).length;
      const tickExecutes = () => stub.tickKeys.size;
      try {
        await waitFor(() => tickExecutes() >= ticksFired, { timeoutMs: 20_000, what: 'one execute per fired tick' });
      } catch {
        violations.push(`${ticksFired} ticks fired but only ${tickExecutes()} tick executes reached the PXP`);
      }
    } finally {
      await db.end();
    }
    // 6. Memory: each pdp instance that ran a while ends within a generous bound of where it started.
    const mb = (bytes: number) => Math.round(bytes / 1048576);
    let longest: { name: string; seconds: number; first: number; last: number } | undefined;
    let worst: { name: string; ratio: number; first: number; last: number } | undefined;
    let instances = 0;
    for (const pdp of pdps) {
      for (const [instance, sample] of pdp.rss) {
        instances++;
        const name = `:${pdp.port}#${instance}`;
        const lived = Math.round(((sample.endedAt ?? Date.now()) - sample.startedAt) / 1000);
        if (longest === undefined || lived > longest.seconds) longest = { name, seconds: lived, first: sample.first, last: sample.last };
        if (lived < 20) continue;
        const ratio = sample.last / sample.first;
        if (worst === undefined || ratio > worst.ratio) worst = { name, ratio, first: sample.first, last: sample.last };
        if (sample.last > Math.max(sample.first * 2.5, sample.first + 150 * 1048576)) {
          violations.push(`pdp ${name} grew from ${mb(sample.first)} MB to ${mb(sample.last)} MB`);
        }
      }
    }
    const rssFigures: Record<string, string | number> = {
      'pdp instances measured (RSS every 2 s)': instances,
      'longest-lived pdp instance, RSS first → last': longest ? `${longest.seconds} s, ${mb(longest.first)} → ${mb(longest.last)} MB` : 'none',
      'worst RSS growth (instances alive ≥ 20 s)': worst ? `${mb(worst.first)} → ${mb(worst.last)} MB (×${worst.ratio.toFixed(2)})` : 'none',
    };

    stopping = true;
    const answered = Object.values(decisions).reduce((sum, n) => sum + n, 0);
    return {
      figures: {
        seconds: Math.round((chaosEndedAt - startedAt) / 1000),
        ...Object.fromEntries(Object.entries(faults).map(([fault, n]) => [fault, n])),
        'decisions answered': answered,
        ...Object.fromEntries(Object.entries(decisions).map(([kind, n]) => [`decisions ${kind}`, n])),
        'deploy/revoke acknowledged': acked.length,
        'last revision': lastRevision,
        'limited allowed': `${limitAllowed} of at most ${LIMIT}`,
        'executes required by answered decisions': answeredSeqs.length,
        'executes delivered (PXP calls)': stub.deliveries,
        'distinct execute ids seen': stub.keys.size,
        'executes delivered from memory (not stored: PostgreSQL down)': stub.unkeyed,
        'timer ticks fired': ticksFired,
        'longest gap without a decision answered (ms)': gaps.pdp.longest,
        'longest gap without a deploy/revoke acknowledged (ms)': gaps.pap.longest,
        ...rssFigures,
        lost: violations.filter((v) => /never|missing/.test(v)).length,
        wrong: violations.filter((v) => !/never|missing/.test(v)).length,
      },
      errors,
      violations,
    };
  } finally {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await nats?.destroy().catch(() => undefined);
    await pg?.destroy().catch(() => undefined);
    await natsCluster?.destroy().catch(() => undefined);
    await pgFailover?.destroy().catch(() => undefined);
  }
}
