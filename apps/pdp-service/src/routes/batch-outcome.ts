import type { Logger } from '@custos/service-kit';
import type { DecisionRecordSink } from '../decision-records/buffer';
import type { DecidedEvent } from '../decision/in-order';
import { logDecision } from '../decision/log';
import type { PdpMetrics } from '../metrics';

export interface BatchFacts {
  route: string;
  requestId: string;
  clientId: string;
  revision: number;
  /** process.hrtime when the request arrived. */
  started: bigint;
  /** Where the decisions go as decision records (the Decider's); none when records are off. */
  records: DecisionRecordSink | undefined;
}

/**
 * After a batch was answered: one decision log line per decided item (all with the request's id, each with its own
 * decision id, latency measured from the request to that item's decision) and the metrics.
 */
export function recordBatch(decisionLog: Logger, metrics: PdpMetrics, decided: readonly DecidedEvent[], facts: BatchFacts): void {
  for (const item of decided) {
    metrics.decisions.inc({ outcome: item.decision.allowed ? 'allow' : 'inhibit' });
    const record = {
      decisionId: item.decisionId,
      requestId: facts.requestId,
      clientId: facts.clientId,
      action: item.action.urn,
      solution: item.action.solution,
      revision: facts.revision,
      decision: item.decision,
      latencyUs: Math.round(Number(item.decidedAt - facts.started) / 1e3),
      explain: false,
    };
    logDecision(decisionLog, record);
    facts.records?.add(record, item.event);
  }
  metrics.batchRequests.inc({ route: facts.route, outcome: 'ok' });
  metrics.batchItems.observe({ route: facts.route }, decided.length);
  metrics.batchDuration.observe({ route: facts.route }, Number(process.hrtime.bigint() - facts.started) / 1e9);
}

/** A failed batch request in the metrics, by the status it was answered with. */
export function countFailedBatch(metrics: PdpMetrics, route: string, status: number): void {
  metrics.batchRequests.inc({ route, outcome: status === 503 ? 'unavailable' : status >= 500 ? 'error' : 'rejected' });
}
