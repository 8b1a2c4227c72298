/** One decision request's outcome, as the load generator saw it. */
export interface Outcome {
  /** When the request was sent, in ms since the load started. */
  atMs: number;
  status: number | undefined;
  detail: string;
}

export interface LoadReport {
  sent: number;
  succeeded: number;
  failures: Outcome[];
}

/**
 * Sends `request` at a steady rate (one every `everyMs`, several in flight when answers are slow) until stopped,
 * `maxRequests` were sent or `maxMs` passed. `check` says whether an answer is the right decision.
 */
export function steadyLoad(
  request: () => Promise<Response>,
  check: (response: Response, body: unknown) => string | undefined,
  { everyMs = 20, maxRequests = 20_000, maxMs = 240_000 }: { everyMs?: number; maxRequests?: number; maxMs?: number } = {},
): { stop: () => Promise<LoadReport>; sent: () => number; succeeded: () => number } {
  const report: LoadReport = { sent: 0, succeeded: 0, failures: [] };
  const inFlight = new Set<Promise<void>>();
  const startedAt = Date.now();
  let stopped = false;

  const one = async () => {
    const atMs = Date.now() - startedAt;
    let status: number | undefined;
    try {
      const response = await request();
      status = response.status;
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // kept as text: check() reports it
      }
      const wrong = check(response, body);
      if (wrong === undefined) report.succeeded += 1;
      else report.failures.push({ atMs, status, detail: wrong });
    } catch (error) {
      report.failures.push({ atMs, status, detail: error instanceof Error ? `${error.message} ${String(error.cause ?? '')}` : String(error) });
    }
  };

  const timer = setInterval(() => {
    if (stopped || report.sent >= maxRequests || Date.now() - startedAt > maxMs) {
      clearInterval(timer);
      return;
    }
    report.sent += 1;
    const pending = one().finally(() => inFlight.delete(pending));
    inFlight.add(pending);
  }, everyMs);

  return {
    sent: () => report.sent,
    succeeded: () => report.succeeded,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await Promise.all([...inFlight]);
      return report;
    },
  };
}

/**
 * Runs `step` one call after another (the next starts `pauseMs` after the last ended) until stopped or `maxMs` passed:
 * for operations that must not overlap, such as deploying and revoking one policy. A step that throws is a failure;
 * its message is the detail.
 */
export function serialLoad(step: () => Promise<void>, { pauseMs = 200, maxMs = 240_000 }: { pauseMs?: number; maxMs?: number } = {}): {
  stop: () => Promise<LoadReport>;
  succeeded: () => number;
} {
  const report: LoadReport = { sent: 0, succeeded: 0, failures: [] };
  const startedAt = Date.now();
  let stopped = false;
  const loop = (async () => {
    while (!stopped && Date.now() - startedAt < maxMs) {
      const atMs = Date.now() - startedAt;
      report.sent += 1;
      try {
        await step();
        report.succeeded += 1;
      } catch (error) {
        report.failures.push({ atMs, status: undefined, detail: error instanceof Error ? error.message : String(error) });
      }
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
    }
  })();
  return {
    succeeded: () => report.succeeded,
    stop: async () => {
      stopped = true;
      await loop;
      return report;
    },
  };
}
