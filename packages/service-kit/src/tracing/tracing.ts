import { INVALID_SPAN_CONTEXT, trace, type Attributes, type Span, type SpanContext } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace';
import type { TracingConfig } from '../config';
import type * as OtelModule from './otel';

export type { Attributes as TraceAttributes, Span as TraceSpan, SpanContext as TraceSpanContext } from '@opentelemetry/api';

/** Incoming request headers, as node:http has them (lower-case names). */
export type TraceHeaders = Readonly<Record<string, string | string[] | undefined>>;

export interface StartSpanOptions {
  kind?: 'server' | 'client' | 'internal';
  /**
   * Continue the trace these incoming headers carry (W3C `traceparent`, `tracestate`); a span begun with headers
   * holding no valid `traceparent` is a root. Without `headers`, the parent is `parent`, else the active span.
   */
  headers?: TraceHeaders;
  /** The parent when no `headers` are given (a root when it is undefined and `root` is set). */
  parent?: SpanContext;
  /** Begin a new trace even when a span is active. */
  root?: boolean;
  /** Spans this one is linked to (e.g. the decisions of one history batch). */
  links?: readonly SpanContext[];
  attributes?: Attributes;
}

/**
 * The tracing of one service: spans begun explicitly where Custos does something worth seeing (a decision, a history
 * statement, a PIP or PXP call, a management request), the active span carried along its calls and promises by an
 * AsyncLocalStorage of this instance (no global context manager, no patched modules). `NO_TRACING` when tracing is off:
 * callers check `enabled` once and take their untraced path, so the off case costs a property read.
 */
export interface Tracing {
  readonly enabled: boolean;
  startSpan(name: string, options?: StartSpanOptions): Span;
  /** Runs `run` with `span` active: spans begun in it, in its callbacks and in what it awaits are its children. */
  withSpan<T>(span: Span, run: () => T): T;
  /** The context of the active span; undefined when none is active. */
  activeSpanContext(): SpanContext | undefined;
  /** Writes the span's `traceparent` (and `tracestate`) into outgoing headers. */
  inject(span: Span, headers: Record<string, string>): void;
  /** Ends the span, marked as failed with the error's message when there is one. */
  end(span: Span, error?: unknown): void;
  /** Sends what is still buffered and stops. */
  shutdown(): Promise<void>;
}

const NOT_RECORDING = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/** Tracing off: nothing is begun, carried or sent. */
export const NO_TRACING: Tracing = {
  enabled: false,
  startSpan: () => NOT_RECORDING,
  withSpan: (_span, run) => run(),
  activeSpanContext: () => undefined,
  inject: () => undefined,
  end: () => undefined,
  shutdown: () => Promise.resolve(),
};

export interface TracingOptions {
  /** Where spans go instead of the OTLP exporter (tests: a SimpleSpanProcessor over an InMemorySpanExporter). */
  spanProcessor?: SpanProcessor;
}

/**
 * The service's tracing: `NO_TRACING` when `config` is undefined (tracing is off by default) and no span processor
 * is given; otherwise spans named for `serviceName` (or `OTEL_SERVICE_NAME`), batched and posted to the OTLP/HTTP
 * endpoint as JSON (`OTEL_EXPORTER_OTLP_HEADERS` and the other exporter variables are read by the exporter).
 */
export function createTracing(config: TracingConfig | undefined, serviceName: string, options: TracingOptions = {}): Tracing {
  if (config === undefined && options.spanProcessor === undefined) return NO_TRACING;
  // The SDK and the exporter are loaded only when tracing is on: a service that does not trace never loads them.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy load, synchronous because composePap is
  const otel = require('./otel') as typeof OtelModule;
  return otel.otelTracing(config, serviceName, options.spanProcessor);
}
