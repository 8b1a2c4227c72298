import { event } from '../policies';
import { TOGGLE_ID } from './deployed-set';
import { pick, until, type PapCall, type Slot } from './services';

const WORKERS = 6;
const TOGGLE_EVERY_MS = 300;

export interface ToggleAnswer {
  revision: number;
  allowed: boolean;
}

/** What the load saw; the checks afterwards judge it. */
export interface LoadRecord {
  /** Revisions pap acknowledged for a deploy or revoke of the toggled policy. */
  acked: number[];
  toggles: ToggleAnswer[];
  /** The `seq` of every answered `notify`: each must reach the PXP. */
  answeredSeqs: string[];
  decisions: Record<string, number>;
  limitAllowed: number;
  /** Longest time without a successful answer, per service, over the whole run (faults included). */
  gaps: { pdp: { last: number; longest: number }; pap: { last: number; longest: number } };
}

export interface LoadContext {
  pdps: Slot[];
  token: string;
  papCall: PapCall;
  /** Broken promises seen while answering (a revision going back, a pure or notify decision inhibited). */
  violations: string[];
  countError: (what: string, kind: string) => void;
}

function errorKind(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  if (cause?.code) return cause.code;
  if ((error as Error).name === 'TimeoutError') return 'timeout';
  return (error as Error).name || 'error';
}

/**
 * Six clients sending decisions without pause to random live pdps (pure, toggled, limited, notify) and a toggler that
 * deploys and revokes the inhibit-all policy every TOGGLE_EVERY_MS through a random pap, until `stop`.
 */
export function startLoad(context: LoadContext): { record: LoadRecord; stop(): Promise<void> } {
  const { pdps, token, papCall, violations, countError } = context;
  const record: LoadRecord = { acked: [], toggles: [], answeredSeqs: [], decisions: {}, limitAllowed: 0, gaps: { pdp: { last: 0, longest: 0 }, pap: { last: 0, longest: 0 } } };
  let running = true;
  let seq = 0;
  const maxAnswered = new Map<string, number>();
  const answeredBy = (service: keyof LoadRecord['gaps']) => {
    const now = Date.now();
    const gap = record.gaps[service];
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
      record.decisions[kind] = (record.decisions[kind] ?? 0) + 1;
      answeredBy('pdp');
      if (revision < floor) violations.push(`pdp :${slot.port} answered revision ${revision} after it had answered ${floor}`);
      maxAnswered.set(instanceKey, Math.max(floor, revision, maxAnswered.get(instanceKey) ?? -1));
      if (kind === 'pure' && !answer.eventAllowed) violations.push(`a pure decision was inhibited at revision ${revision}`);
      if (kind === 'notify') {
        if (!answer.eventAllowed) violations.push(`a notify decision was inhibited at revision ${revision}`);
        if (mySeq !== undefined) record.answeredSeqs.push(mySeq);
      }
      if (kind === 'toggled') record.toggles.push({ revision, allowed: answer.eventAllowed });
      if (kind === 'limited' && answer.eventAllowed) record.limitAllowed++;
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
        const answer = deployed ? await papCall('GET', `/ws/policy/${TOGGLE_ID}/revoke`) : await papCall('POST', `/ws/policy/${TOGGLE_ID}/deploy`);
        if (answer.status === 200 && Number.isInteger(answer.revision)) {
          record.acked.push(answer.revision);
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

  const load = [...Array.from({ length: WORKERS }, worker), toggler()];
  return {
    record,
    stop: async () => {
      running = false;
      await Promise.all(load);
    },
  };
}
