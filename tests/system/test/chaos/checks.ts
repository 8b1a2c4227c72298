import { connect } from 'nats';
import { Client } from 'pg';
import { policySubjects } from '@custos/contracts';
import { waitFor } from '@custos/test-kit';
import { LIMIT, TIMER_ID, TOGGLE_ID } from './deployed-set';
import type { LoadRecord } from './load';
import type { Slot } from './services';
import type { StubPxp } from './stub-pxp';

/**
 * The checks after the faults: 1. every change pap acknowledged reached every live replica and the stream, which has
 * every revision from 1 on; 2. every `toggled` decision agrees with the revision it names. Returns the last revision.
 */
export async function checkChanges(
  context: { pdps: Slot[]; natsUrl: string; prefix: string; record: LoadRecord; log: (line: string) => void },
  violations: string[],
): Promise<number> {
  const { pdps, natsUrl, prefix, record, log } = context;
  const maxAcked = Math.max(0, ...record.acked);
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
  for (const revision of record.acked) if (!toggleAt.has(revision)) violations.push(`acknowledged revision ${revision} is missing from the change stream`);
  const lastRevision = Math.max(0, ...toggleAt.keys());
  for (let revision = 1; revision <= lastRevision; revision++) if (!toggleAt.has(revision)) violations.push(`revision ${revision} is missing from the change stream`);
  const deployedAt: boolean[] = [];
  let state = false;
  for (let revision = 0; revision <= lastRevision; revision++) {
    const change = toggleAt.get(revision);
    if (change !== undefined) state = change;
    deployedAt[revision] = state;
  }
  let wrong = 0;
  for (const answer of record.toggles) {
    if (answer.revision > lastRevision) {
      violations.push(`a decision named revision ${answer.revision}, beyond the last one published (${lastRevision})`);
      continue;
    }
    if (resyncs === 0 && answer.allowed === deployedAt[answer.revision]) wrong++;
  }
  if (wrong > 0) violations.push(`${wrong} decisions of \`toggled\` disagree with the revision they name`);
  return lastRevision;
}

/** 3. No limit overshot; 4. every execute of an answered decision reached the PXP. */
export async function checkLimitAndExecutes(record: LoadRecord, stub: StubPxp, violations: string[]): Promise<void> {
  if (record.limitAllowed > LIMIT) violations.push(`\`limited\` was allowed ${record.limitAllowed} times; the policy allows at most ${LIMIT}`);
  const undelivered = () => record.answeredSeqs.filter((s) => !stub.bySeq.has(s));
  try {
    await waitFor(() => undelivered().length === 0, { timeoutMs: 30_000, what: 'every execute delivered' });
  } catch {
    violations.push(`${undelivered().length} executes of answered decisions never reached the PXP (e.g. ${undelivered().slice(0, 5).join(', ')})`);
  }
}

/**
 * 5. Every due tick fired exactly once (one row, done), and ran its execute. `connectionString` names one host (in
 * the clustered form, the primary's: a plain client takes one). Returns the ticks fired.
 */
export async function checkTimer(
  context: { connectionString: string; chaosEndedAt: number; timerPeriodMs: number; stub: StubPxp },
  violations: string[],
): Promise<number> {
  const { connectionString, chaosEndedAt, timerPeriodMs, stub } = context;
  const db = new Client({ connectionString });
  await db.connect();
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
    const ticksFired = rows.filter((row) => row.done).length;
    const tickExecutes = () => stub.tickKeys.size;
    try {
      await waitFor(() => tickExecutes() >= ticksFired, { timeoutMs: 20_000, what: 'one execute per fired tick' });
    } catch {
      violations.push(`${ticksFired} ticks fired but only ${tickExecutes()} tick executes reached the PXP`);
    }
    return ticksFired;
  } finally {
    await db.end();
  }
}
