import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export { Counter, Gauge, Histogram, Registry } from 'prom-client';

export interface ServiceMetrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route'>;
}

/**
 * How often the event-loop delay is sampled, in ms. prom-client's default (10 ms) is a timer that wakes an idle
 * service 100 times a second; on a virtual machine where a wake-up costs tens of µs of CPU that is most of an idle
 * service's CPU and, at a steady request rate, an extra wake-up between requests (issue 26). Sampled every 100 ms the
 * lag histogram still sees every stall longer than that, which is what it is read for.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/** One registry per app instance, so tests that build several apps in one process do not collide. */
export function createMetrics(service: string, collectProcessMetrics = true): ServiceMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  if (collectProcessMetrics) collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests answered, by route template and status',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'Time to answer an HTTP request',
      labelNames: ['method', 'route'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}
