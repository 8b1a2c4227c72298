import { AsyncLocalStorage } from 'node:async_hooks';
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
  type Context,
  type Span,
  type SpanContext,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import type { TracingConfig } from '../config';
import type { StartSpanOptions, Tracing } from './tracing';

const KINDS = { server: SpanKind.SERVER, client: SpanKind.CLIENT, internal: SpanKind.INTERNAL } as const;

class OtelTracing implements Tracing {
  readonly enabled = true;
  private readonly active = new AsyncLocalStorage<Context>();
  private readonly propagator = new W3CTraceContextPropagator();
  private readonly tracer: Tracer;

  constructor(private readonly provider: TracerProvider) {
    this.tracer = provider.getTracer('custos');
  }

  startSpan(name: string, options: StartSpanOptions = {}): Span {
    const spanOptions = {
      kind: KINDS[options.kind ?? 'internal'],
      ...(options.attributes === undefined ? {} : { attributes: options.attributes }),
      ...(options.links === undefined ? {} : { links: options.links.map((context) => ({ context })) }),
    };
    return this.tracer.startSpan(name, spanOptions, this.parentOf(options));
  }

  private parentOf(options: StartSpanOptions): Context {
    if (options.headers !== undefined) return this.propagator.extract(ROOT_CONTEXT, options.headers, defaultTextMapGetter);
    if (options.parent !== undefined) return trace.setSpanContext(ROOT_CONTEXT, options.parent);
    if (options.root === true) return ROOT_CONTEXT;
    return this.active.getStore() ?? ROOT_CONTEXT;
  }

  withSpan<T>(span: Span, run: () => T): T {
    return this.active.run(trace.setSpan(ROOT_CONTEXT, span), run);
  }

  activeSpanContext(): SpanContext | undefined {
    const context = this.active.getStore();
    return context === undefined ? undefined : trace.getSpanContext(context);
  }

  inject(span: Span, headers: Record<string, string>): void {
    this.propagator.inject(trace.setSpan(ROOT_CONTEXT, span), headers, defaultTextMapSetter);
  }

  end(span: Span, error?: unknown): void {
    if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
    span.end();
  }

  shutdown(): Promise<void> {
    return this.provider.shutdown();
  }
}

/** Tracing on (tracing.ts `createTracing`, which loads this module only then): to `spanProcessor`, else OTLP/HTTP JSON. */
export function otelTracing(config: TracingConfig | undefined, serviceName: string, spanProcessor: SpanProcessor | undefined): Tracing {
  const processor =
    spanProcessor ??
    new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: (config as TracingConfig).tracesUrl }), scheduledDelayMillis: (config as TracingConfig).exportDelayMs });
  const resource = resourceFromAttributes({ [ATTR_SERVICE_NAME]: config?.serviceName ?? serviceName });
  return new OtelTracing(new TracerProvider({ resource, spanProcessors: [processor] }));
}
