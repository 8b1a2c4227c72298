import { AckPolicy, DeliverPolicy, nanos, type NatsConnection, type NatsError } from 'nats';
import { decisionRecordSubjects, type DecisionRecordOutcome, type DecisionRecordsAnswer, type DecisionRecordWire } from '@custos/contracts';

/** What `GET /ws/decisions` asks for; every field but `limit` narrows it. */
export interface DecisionQuery {
  /** The solutions the caller may read; null: every one. */
  solutions: readonly string[] | null;
  solution?: string;
  action?: string;
  outcome?: DecisionRecordOutcome;
  decisionId?: string;
  /** Milliseconds since the epoch, inclusive. */
  from?: number;
  to?: number;
  limit: number;
}

export interface DecisionRecordReaderOptions {
  /** The NATS connection when there is one right now. */
  connection(): NatsConnection | undefined;
  prefix: string;
  /** Records one search reads at most (the newest matches among them are answered; `truncated` says it stopped). */
  scanLimit?: number;
}

/** NATS out of reach: the route answers 503. */
export class RecordsUnavailable extends Error {}

const STREAM_NOT_FOUND = 10059;
const API_TIMEOUT_MS = 5000;
const DEFAULT_SCAN_LIMIT = 100_000;

/**
 * Reads decision records back from the stream the pdps publish them to (issue 24). A search is one ephemeral
 * consumer, narrowed on the server by subject (one decision id, or one solution) and start time, read once from
 * its start: its `num_pending` at creation says how many records it will deliver, so the read ends without waiting
 * for a timeout. What a subject cannot say (action, outcome, end time, the caller's solutions) is filtered here.
 */
export class DecisionRecordReader {
  private readonly subjects;
  private readonly scanLimit: number;

  constructor(private readonly options: DecisionRecordReaderOptions) {
    this.subjects = decisionRecordSubjects(options.prefix);
    this.scanLimit = options.scanLimit ?? DEFAULT_SCAN_LIMIT;
  }

  async search(query: DecisionQuery): Promise<DecisionRecordsAnswer> {
    const nc = this.options.connection();
    if (nc === undefined) throw new RecordsUnavailable('NATS is not connected');
    const jsm = await nc.jetstreamManager({ timeout: API_TIMEOUT_MS });
    const filter =
      query.decisionId !== undefined
        ? query.solution === undefined
          ? this.subjects.ofDecision(query.decisionId)
          : this.subjects.subjectOf(query.solution, query.decisionId)
        : query.solution !== undefined
          ? this.subjects.ofSolution(query.solution)
          : this.subjects.all;
    let info;
    try {
      info = await jsm.consumers.add(this.subjects.stream, {
        ack_policy: AckPolicy.None,
        filter_subject: filter,
        mem_storage: true,
        inactive_threshold: nanos(60_000),
        ...(query.from === undefined
          ? { deliver_policy: DeliverPolicy.All }
          : { deliver_policy: DeliverPolicy.StartTime, opt_start_time: new Date(query.from).toISOString() }),
      });
    } catch (error) {
      // No pdp published yet: no records.
      if ((error as NatsError).api_error?.err_code === STREAM_NOT_FOUND) return { records: [], truncated: false };
      throw error;
    }
    const pending = info.num_pending;
    const toRead = Math.min(pending, this.scanLimit);
    const found: DecisionRecordWire[] = [];
    let matched = 0;
    try {
      if (toRead > 0) {
        const consumer = await nc.jetstream({ timeout: API_TIMEOUT_MS }).consumers.get(this.subjects.stream, info.name);
        let read = 0;
        while (read < toRead) {
          const messages = await consumer.fetch({ max_messages: Math.min(toRead - read, 1000), expires: API_TIMEOUT_MS });
          let got = 0;
          for await (const message of messages) {
            got += 1;
            const record = recordOf(message.data);
            if (record !== undefined && matches(record, query)) {
              matched += 1;
              found.push(record);
              // Keep the newest `limit`: the oldest goes once there is one too many.
              if (found.length > query.limit) found.shift();
            }
          }
          if (got === 0) break;
          read += got;
        }
      }
    } finally {
      await jsm.consumers.delete(this.subjects.stream, info.name).catch(() => undefined);
    }
    return { records: found, truncated: matched > query.limit || pending > toRead };
  }

  /** One decision's record, or undefined when the stream holds none (never made, or aged out). */
  async find(decisionId: string, solutions: readonly string[] | null): Promise<DecisionRecordWire | undefined> {
    const { records } = await this.search({ decisionId, solutions, limit: 1 });
    return records[0];
  }
}

function recordOf(data: Uint8Array): DecisionRecordWire | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(data));
    return typeof value === 'object' && value !== null && typeof (value as { decisionId?: unknown }).decisionId === 'string'
      ? (value as DecisionRecordWire)
      : undefined;
  } catch {
    return undefined;
  }
}

function matches(record: DecisionRecordWire, query: DecisionQuery): boolean {
  if (query.solutions !== null && !query.solutions.includes(record.solution)) return false;
  if (query.solution !== undefined && record.solution !== query.solution) return false;
  if (query.decisionId !== undefined && record.decisionId !== query.decisionId) return false;
  if (query.action !== undefined && record.action !== query.action) return false;
  if (query.outcome !== undefined && record.allowed !== (query.outcome === 'allow')) return false;
  if (query.from !== undefined || query.to !== undefined) {
    const time = Date.parse(record.time);
    if (query.from !== undefined && time < query.from) return false;
    if (query.to !== undefined && time > query.to) return false;
  }
  return true;
}
