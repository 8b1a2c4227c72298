import { Counter, Gauge, type Registry } from '@custos/service-kit';
import type { Admission } from './admission';

const NAMES = ['decision_requests_admitted_total', 'decision_requests_refused_total', 'decision_requests_in_flight'] as const;

/**
 * The admission figures per solution in /metrics, read from the gates when scraped: counting on every request
 * through prom-client's labelled children would cost the hot path more than the admission itself.
 */
export function registerAdmissionMetrics(registry: Registry, admission: Admission): void {
  // A registry reused by a second app in one process (tests) keeps the newest app's figures.
  for (const name of NAMES) registry.removeSingleMetric(name);
  new Counter({
    name: 'decision_requests_admitted_total',
    help: 'Decision requests (POST /event, /event/explain, /events, AuthZEN) admitted, by solution of the token (`*`: a token of every solution)',
    labelNames: ['solution'],
    registers: [registry],
    collect() {
      this.reset();
      for (const gate of admission.solutions()) this.inc({ solution: gate.solution }, gate.admitted);
    },
  });
  new Counter({
    name: 'decision_requests_refused_total',
    help: 'Decision requests refused with 429, by solution and reason (concurrency = PDP_SOLUTION_MAX_CONCURRENCY in flight, rate = past PDP_SOLUTION_RATE)',
    labelNames: ['solution', 'reason'],
    registers: [registry],
    collect() {
      this.reset();
      for (const gate of admission.solutions()) {
        this.inc({ solution: gate.solution, reason: 'concurrency' }, gate.refusedConcurrency);
        this.inc({ solution: gate.solution, reason: 'rate' }, gate.refusedRate);
      }
    },
  });
  new Gauge({
    name: 'decision_requests_in_flight',
    help: 'Decision requests in flight on this replica, by solution',
    labelNames: ['solution'],
    registers: [registry],
    collect() {
      this.reset();
      for (const gate of admission.solutions()) this.set({ solution: gate.solution }, gate.inFlight);
    },
  });
}
