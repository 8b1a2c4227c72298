import { infoLines, type InfoLines, type Logger } from '@custos/service-kit';
import type { PdpMetrics } from '../metrics';
import { DECISION_MSG, decisionMembers, logDecision, type DecisionRecord } from './log';

/**
 * The last step of the decision pipeline for POST /event, after the answer: the metrics (`decisions_total` or
 * `explains_total`, the latency histogram) and the decision log line. Each answered decision is queued, and the queue
 * is worked off once per pass of the event loop (setImmediate, right after the I/O callbacks that answered): the
 * lines of all decisions answered in that pass are written with one write, and the counters incremented once per
 * outcome. Done per request in between two answers, the same work cost several times as much, the metrics' and the
 * log's code and data having left the CPU's caches in between. The lines are those logDecision writes, in the order
 * the decisions were answered; they are written before the loop reads the next requests.
 */
export class AnsweredDecisions {
  private records: DecisionRecord[] = [];
  /** The latency of each queued record in seconds, for the histogram (explanations are not observed). */
  private seconds: number[] = [];
  private scheduled = false;
  private lines: InfoLines | undefined | null = null;

  constructor(
    private readonly decisionLog: Logger,
    private readonly metrics: PdpMetrics,
  ) {}

  add(record: DecisionRecord, seconds: number): void {
    this.records.push(record);
    this.seconds.push(seconds);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.flush);
    }
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    const { records, seconds } = this;
    this.records = [];
    this.seconds = [];
    this.count(records, seconds);
    this.log(records);
  };

  private count(records: readonly DecisionRecord[], seconds: readonly number[]): void {
    const { metrics } = this;
    let allowed = 0;
    let inhibited = 0;
    let explainedAllowed = 0;
    let explainedInhibited = 0;
    for (let i = 0; i < records.length; i++) {
      const record = records[i] as DecisionRecord;
      if (record.explain) {
        if (record.decision.allowed) explainedAllowed++;
        else explainedInhibited++;
        continue;
      }
      if (record.decision.allowed) allowed++;
      else inhibited++;
      metrics.decisionDuration.observe(seconds[i] ?? 0);
    }
    if (allowed > 0) metrics.decisions.inc({ outcome: 'allow' }, allowed);
    if (inhibited > 0) metrics.decisions.inc({ outcome: 'inhibit' }, inhibited);
    if (explainedAllowed > 0) metrics.explains.inc({ outcome: 'allow' }, explainedAllowed);
    if (explainedInhibited > 0) metrics.explains.inc({ outcome: 'inhibit' }, explainedInhibited);
  }

  private log(records: readonly DecisionRecord[]): void {
    if (this.lines === null) this.lines = infoLines(this.decisionLog);
    const lines = this.lines;
    if (lines === undefined) {
      // A logger of another shape: line by line, as logDecision writes them.
      for (const record of records) logDecision(this.decisionLog, record);
      return;
    }
    if (!lines.enabled()) return;
    // The lines of one pass are made in the same moment: one clock reading for all.
    const time = lines.now();
    let text = '';
    for (const record of records) text += lines.line(DECISION_MSG, decisionMembers(record), time);
    lines.write(text);
  }
}
