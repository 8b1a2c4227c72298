import { DECISION_OUTCOMES, type DecisionRecordsAnswer, type DecisionRecordWire } from '@custos/contracts';
import { InvalidArgumentError, type Command } from 'commander';
import type { RemoteContext } from './context';
import { REMOTE_EXIT, UsageFailure } from './failures';
import { runAction } from './run-action';
import { sessionApi } from './session-api';

interface DecisionsOptions {
  solution?: string;
  action?: string;
  outcome?: string;
  id?: string;
  from?: string;
  to?: string;
  limit?: number;
  follow?: boolean;
  intervalMs?: number;
  json?: boolean;
}

/** One record as a line: time, id, solution, action, outcome (and whose default decided), revision, client, replica. */
export function recordLine(record: DecisionRecordWire): string {
  const outcome = record.allowed ? 'allow' : 'inhibit';
  const how = record.explain ? ' (explain)' : record.decided ? '' : ` (default of ${record.defaultSource ?? 'pdp'})`;
  const errors = record.errors.length === 0 ? '' : ` errors ${record.errors.length}`;
  return `${record.time} ${record.decisionId} ${record.solution} ${record.action} ${outcome}${how} revision ${record.revision} client ${record.clientId} replica ${record.replicaId}${errors}\n`;
}

/** The query of `GET /ws/decisions` from the options (`from` overridden while following). */
function queryOf(options: DecisionsOptions, from: string | undefined): string {
  const query = new URLSearchParams();
  if (options.solution !== undefined) query.set('solution', options.solution);
  if (options.action !== undefined) query.set('action', options.action);
  if (options.outcome !== undefined) query.set('outcome', options.outcome);
  if (from !== undefined) query.set('from', from);
  if (options.to !== undefined) query.set('to', options.to);
  query.set('limit', String(options.limit ?? 100));
  return query.toString();
}

const positive = (name: string) => (text: string): number => {
  if (!/^\d{1,7}$/.test(text) || Number(text) === 0) throw new InvalidArgumentError(`\`${text}\` is not a positive integer for ${name}`);
  return Number(text);
};

const waitMs = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `custos decisions`: the decision records of pap's `GET /ws/decisions` (issue 24), one line each, narrowed by
 * solution, action, outcome, time; `--id` prints one decision's whole record; `--follow` keeps asking for newer
 * records (every `--interval-ms`) and prints each once, until interrupted.
 */
export function registerDecisionRecordCommands(program: Command, context: RemoteContext): void {
  program
    .command('decisions')
    .description('decision records the pdps published: search them, show one by id, or follow new ones')
    .option('--solution <solution>', 'only this solution')
    .option('--action <urn>', 'only this action, e.g. urn:action:acme:read')
    .option('--outcome <outcome>', `only ${DECISION_OUTCOMES.join(' or ')}`)
    .option('--id <decisionId>', "print this decision's record (urn:decision:...)")
    .option('--from <time>', 'answered at or after (RFC 3339 or ms since the epoch)')
    .option('--to <time>', 'answered at or before')
    .option('--limit <n>', 'at most n records, the newest (default 100)', positive('--limit'))
    .option('-f, --follow', 'keep printing new records as they come')
    .option('--interval-ms <ms>', 'with --follow: how often to ask (default 1000)', positive('--interval-ms'))
    .option('--json', 'print records as JSON (one object per line with --follow)')
    .action((options: DecisionsOptions) =>
      runAction(context, async () => {
        if (options.outcome !== undefined && !(DECISION_OUTCOMES as readonly string[]).includes(options.outcome)) {
          throw new UsageFailure(`--outcome must be ${DECISION_OUTCOMES.map((v) => `\`${v}\``).join(' or ')}; got \`${options.outcome}\``);
        }
        const api = await sessionApi(context);
        if (options.id !== undefined) {
          const record = (await api.papJson('GET', `/ws/decisions/${encodeURIComponent(options.id).replace(/%3A/gi, ':')}`)) as DecisionRecordWire;
          context.out(options.json === true ? `${JSON.stringify(record, null, 2)}\n` : recordDetail(record));
          return REMOTE_EXIT.ok;
        }
        const search = async (from: string | undefined) => (await api.papJson('GET', `/ws/decisions?${queryOf(options, from)}`)) as DecisionRecordsAnswer;
        const print = (record: DecisionRecordWire) => context.out(options.json === true && options.follow === true ? `${JSON.stringify(record)}\n` : recordLine(record));
        const first = await search(options.from);
        if (options.json === true && options.follow !== true) {
          context.out(`${JSON.stringify(first, null, 2)}\n`);
          return REMOTE_EXIT.ok;
        }
        first.records.forEach(print);
        if (options.follow !== true) {
          if (first.truncated) context.err(`(more records match: the newest ${first.records.length} are shown; narrow the search or raise --limit)\n`);
          // An empty answer is most often a stack whose pdps do not publish records (off by default).
          if (first.records.length === 0) context.err('no decision record matches (pdps publish records only with PDP_DECISION_RECORDS=on)\n');
          return REMOTE_EXIT.ok;
        }
        await follow(first.records, search, print, options.intervalMs ?? 1000);
        return REMOTE_EXIT.ok;
      }),
    );
}

/**
 * Asks again for records from the newest time seen on, printing those not seen yet. Records of several pdps may
 * arrive out of time order by up to their batching delay, so each search reaches a little back and the ids seen
 * in that span are remembered.
 */
async function follow(
  seen: readonly DecisionRecordWire[],
  search: (from: string | undefined) => Promise<DecisionRecordsAnswer>,
  print: (record: DecisionRecordWire) => void,
  intervalMs: number,
): Promise<never> {
  const LOOK_BACK_MS = 5000;
  let newest = seen.reduce((max, record) => Math.max(max, Date.parse(record.time)), 0);
  let known = new Map(seen.map((record) => [record.decisionId, Date.parse(record.time)]));
  for (;;) {
    await waitMs(intervalMs);
    const from = newest === 0 ? undefined : new Date(newest - LOOK_BACK_MS).toISOString();
    const { records } = await search(from);
    for (const record of records) {
      if (known.has(record.decisionId)) continue;
      const time = Date.parse(record.time);
      known.set(record.decisionId, time);
      newest = Math.max(newest, time);
      print(record);
    }
    // Forget what is older than the span searched again.
    known = new Map([...known].filter(([, time]) => time >= newest - 2 * LOOK_BACK_MS));
  }
}

/** A record in full, for `--id`. */
function recordDetail(record: DecisionRecordWire): string {
  let text = recordLine(record);
  text += `request ${record.requestId}, latency ${record.latencyUs} µs\n`;
  text += `matched policies: ${record.matchedPolicies.length === 0 ? 'none' : record.matchedPolicies.join(', ')}\n`;
  if (record.modifiers > 0) text += `modifiers: ${record.modifiers}\n`;
  if (record.delayMs > 0) text += `delay: ${record.delayMs} ms\n`;
  for (const error of record.errors) text += `error in ${error.policyId} ${error.mechanism}: ${error.message}\n`;
  for (const execution of record.executions) text += `execute ${execution.action} (${execution.policyId})\n`;
  for (const parameter of record.parameters ?? []) {
    text += parameter.value === undefined ? `parameter ${parameter.name}: hash ${parameter.hash ?? ''}\n` : `parameter ${parameter.name}: ${JSON.stringify(parameter.value.value)}\n`;
  }
  return text;
}
