import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Tracing } from './tracing';

/**
 * One server span for a request: begun under the trace of its `traceparent` (a root without one), named
 * `<method> <route>` with the route's template (never the path with its values), active while `run` runs and what
 * it starts, ended when the answer is sent (or the connection closes first); a status of 500 or more marks it failed.
 */
export function traceRequest(tracing: Tracing, route: string, req: IncomingMessage, res: ServerResponse, run: () => void): void {
  const method = req.method ?? 'GET';
  const span = tracing.startSpan(`${method} ${route}`, {
    kind: 'server',
    headers: req.headers,
    attributes: { 'http.request.method': method, 'http.route': route },
  });
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    span.setAttribute('http.response.status_code', res.statusCode);
    tracing.end(span, res.statusCode >= 500 ? `answered ${res.statusCode}` : res.writableFinished ? undefined : 'the connection closed before the answer');
  };
  res.once('finish', end);
  res.once('close', end);
  tracing.withSpan(span, run);
}
