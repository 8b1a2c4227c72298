/**
 * The W3C trace context a request carries, as the application's tracer has it: `traceHeaders` is asked before each
 * request (so it sees the span active then) and may return `traceparent` and `tracestate`; every other name it
 * returns is ignored, so it cannot replace the token or the content type. With OpenTelemetry:
 * `traceHeaders: () => { const carrier = {}; propagation.inject(context.active(), carrier); return carrier; }`.
 */
export type TraceHeaders = () => Readonly<Record<string, string>> | undefined;

const TRACE_HEADER_NAMES = ['traceparent', 'tracestate'] as const;

/** Adds the trace context the callback returns to `headers`; a callback that throws adds nothing (tracing never fails a decision). */
export function addTraceHeaders(headers: Record<string, string>, traceHeaders: TraceHeaders | undefined): void {
  if (traceHeaders === undefined) return;
  let carrier: Readonly<Record<string, string>> | undefined;
  try {
    carrier = traceHeaders();
  } catch {
    return;
  }
  if (carrier === undefined || carrier === null || typeof carrier !== 'object') return;
  for (const name of TRACE_HEADER_NAMES) {
    const value = carrier[name];
    if (typeof value === 'string' && value !== '') headers[name] = value;
  }
}
