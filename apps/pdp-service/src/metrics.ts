import { Counter, Gauge, Histogram, createMetrics, type ServiceMetrics } from '@custos/service-kit';

export const SERVICE_NAME = 'pdp-service';

/** Outcomes of a decision request, the label of `decisions_total`. */
export type DecisionOutcome = 'allow' | 'inhibit' | 'rejected' | 'unavailable' | 'error';

/** What the policy-set follower reports; a subset so unit tests can pass their own. */
export interface FollowerMetrics {
  policyRevision: Gauge;
  compileFailures: Counter<'source'>;
  resyncs: Counter<'reason'>;
  /** Snapshot checks pap answered with SnapshotUnchanged (no documents sent), by reason: what a resync cost nothing. */
  unchangedSnapshots: Counter<'reason'>;
}

export interface PdpMetrics extends ServiceMetrics, FollowerMetrics {
  decisions: Counter<'outcome'>;
  decisionDuration: Histogram;
  /** POST /events and the AuthZEN evaluation routes: requests by route and outcome, their sizes and durations. */
  batchRequests: Counter<'route' | 'outcome'>;
  batchItems: Histogram<'route'>;
  batchDuration: Histogram<'route'>;
  explains: Counter<'outcome'>;
  historyFailures: Counter<'op'>;
  historyRetentionDeleted: Counter<'kind'>;
  /** Phases of recorded decisions (history/store.ts, HISTORY_PHASES): where their latency goes. */
  historyPhase: Histogram<'phase'>;
  pipCalls: Counter<'outcome'>;
  /** PIP and PXP calls the egress policy refused (PDP_CALL_ALLOW), by `call`: pip or pxp. */
  egressRefusals: Counter<'call'>;
  pxpExecutions: Counter<'kind' | 'outcome'>;
  /** Stored executes pending and failed (counted every few polls, over every replica's executes). */
  pxpExecutionsStored: Gauge<'state'>;
  timerTicks: Counter<'outcome'>;
  /** Decision records (decision-records/), by outcome: published, dropped (the buffer full), failed (NATS refused). */
  decisionRecords: Counter<'outcome'>;
}

export function createPdpMetrics(collectProcessMetrics = true): PdpMetrics {
  const base = createMetrics(SERVICE_NAME, collectProcessMetrics);
  const registers = [base.registry];
  return {
    ...base,
    decisions: new Counter({
      name: 'decisions_total',
      help:
        'Decisions by outcome: POST /event requests (allow, inhibit, rejected = 4xx, unavailable = 503, error = 500), and each decided item of POST /events and the AuthZEN routes (allow, inhibit)',
      labelNames: ['outcome'],
      registers,
    }),
    decisionDuration: new Histogram({
      name: 'decision_duration_seconds',
      help: 'Time from request to written decision of POST /event (successful decisions only)',
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 2.5],
      registers,
    }),
    batchRequests: new Counter({
      name: 'batch_requests_total',
      help: 'POST /events, /access/v1/evaluation and /access/v1/evaluations requests by route and outcome (ok, rejected = 4xx, unavailable = 503, error = 500)',
      labelNames: ['route', 'outcome'],
      registers,
    }),
    batchItems: new Histogram({
      name: 'batch_items',
      help: 'Items decided per successful batch request, by route (fewer than sent when an AuthZEN semantic stopped early)',
      labelNames: ['route'],
      buckets: [1, 2, 5, 10, 20, 50, 100],
      registers,
    }),
    batchDuration: new Histogram({
      name: 'batch_duration_seconds',
      help: 'Time from request to written answer of successful batch requests, by route',
      labelNames: ['route'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers,
    }),
    explains: new Counter({
      name: 'explains_total',
      help: 'POST /event/explain requests by outcome (not counted in decisions_total)',
      labelNames: ['outcome'],
      registers,
    }),
    historyFailures: new Counter({
      name: 'history_failures_total',
      help: 'Failed event history operations by op (record, count, occurrence, valueChanged, commit); the mechanisms failed closed',
      labelNames: ['op'],
      registers,
    }),
    historyRetentionDeleted: new Counter({
      name: 'history_retention_deleted_total',
      help: 'Rows deleted by history retention (events, states, ticks)',
      labelNames: ['kind'],
      registers,
    }),
    historyPhase: new Histogram({
      name: 'history_phase_seconds',
      help: 'Phases of recorded decisions by phase: queue (per decision, until a batch of its action goes from this replica), connect (per batch, pool wait), record (per batch, the round trip recording it and flushing it to disk, with the waits for the action lock and the WAL flush), read (per round trip of counts not known from the batches)',
      labelNames: ['phase'],
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers,
    }),
    pipCalls: new Counter({
      name: 'pip_calls_total',
      help: 'PIP answers by outcome (answered, cached, failed, refused = circuit open, too many in flight or egress policy, unregistered)',
      labelNames: ['outcome'],
      registers,
    }),
    egressRefusals: new Counter({
      name: 'egress_refusals_total',
      help: 'PIP and PXP calls the egress policy refused (an address not public and not in PDP_CALL_ALLOW, user information in the url), by call (pip, pxp)',
      labelNames: ['call'],
      registers,
    }),
    pxpExecutions: new Counter({
      name: 'pxp_executions_total',
      help: 'PXP executes by kind (async after the decision, sync in a condition) and outcome',
      labelNames: ['kind', 'outcome'],
      registers,
    }),
    pxpExecutionsStored: new Gauge({
      name: 'pxp_executions_stored',
      help: 'Executes in pdp.executions by state: pending (being delivered) and failed (attempts spent; retry them with POST /executions/{id}/retry)',
      labelNames: ['state'],
      registers,
    }),
    timerTicks: new Counter({
      name: 'timer_ticks_total',
      help: 'Timer ticks by outcome (fired = claimed here, claimed-elsewhere, failed = not claimed)',
      labelNames: ['outcome'],
      registers,
    }),
    decisionRecords: new Counter({
      name: 'decision_records_total',
      help: 'Decision records by outcome (published to the stream, dropped = the buffer was full, failed = NATS refused the batch)',
      labelNames: ['outcome'],
      registers,
    }),
    policyRevision: new Gauge({
      name: 'policy_revision',
      help: 'Revision of the active policy set (-1 before the first snapshot)',
      registers,
    }),
    compileFailures: new Counter({
      name: 'policy_compile_failures_total',
      help: 'Policies that failed to compile; the last good set stayed active',
      labelNames: ['source'],
      registers,
    }),
    resyncs: new Counter({
      name: 'resyncs_total',
      help: 'Snapshots fetched, by reason (start, gap, message, reconnect, periodic)',
      labelNames: ['reason'],
      registers,
    }),
    unchangedSnapshots: new Counter({
      name: 'resyncs_unchanged_total',
      help: 'Of resyncs_total, those pap answered as unchanged (the active revision is the deployed one; no documents sent), by reason',
      labelNames: ['reason'],
      registers,
    }),
  };
}
