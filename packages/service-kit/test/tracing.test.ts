import request from 'supertest';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import {
  ConfigError,
  NO_TRACING,
  createLogger,
  createMetrics,
  createServiceApp,
  createTracing,
  jsonResponse,
  mountRoutes,
  readCommonConfig,
  readTracingConfig,
  routeHandlers,
  routesFor,
  serviceDocument,
} from '@custos/service-kit';

const PARENT_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${PARENT_TRACE}-${PARENT_SPAN}-01`;

describe('readTracingConfig: the standard OTEL_* variables', () => {
  it('is off when nothing asks for it, and for the common config too', () => {
    expect(readTracingConfig({})).toBeUndefined();
    expect(readCommonConfig({}).tracing).toBeUndefined();
    expect(readTracingConfig({ OTEL_SERVICE_NAME: 'custos-pdp' })).toBeUndefined();
  });

  it('is off with OTEL_TRACES_EXPORTER=none or OTEL_SDK_DISABLED=true, whatever endpoint is set', () => {
    expect(readTracingConfig({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBeUndefined();
    expect(readTracingConfig({ OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp' })).toBeUndefined();
  });

  it('sends to the endpoint with /v1/traces added, the traces endpoint as it is, or the local collector for otlp alone', () => {
    expect(readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({ tracesUrl: 'http://collector:4318/v1/traces', exportDelayMs: 5000 });
    expect(
      readTracingConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://ignored:1', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp', OTEL_SERVICE_NAME: 'pdp-eu' }),
    ).toEqual({ tracesUrl: 'https://traces.example/otlp', serviceName: 'pdp-eu', exportDelayMs: 5000 });
    expect(readTracingConfig({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_BSP_SCHEDULE_DELAY: '200' })).toEqual({ tracesUrl: 'http://localhost:4318/v1/traces', exportDelayMs: 200 });
    expect(readCommonConfig({ OTEL_TRACES_EXPORTER: 'otlp' }).tracing?.tracesUrl).toBe('http://localhost:4318/v1/traces');
  });

  it.each([
    [{ OTEL_TRACES_EXPORTER: 'jaeger' }, /OTEL_TRACES_EXPORTER must be `otlp` or `none`, got `jaeger`/],
    [{ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, /OTEL_EXPORTER_OTLP_PROTOCOL must be `http\/json`.*got `grpc`/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /must be an http\(s\) URL, got `collector:4318\/v1\/traces`/],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' }, /must be an http\(s\) URL, got `not a url`/],
  ])('refuses %j in one sentence', (env, message) => {
    expect(() => readTracingConfig(env)).toThrow(ConfigError);
    expect(() => readTracingConfig(env)).toThrow(message);
  });
});

describe('tracing off (NO_TRACING)', () => {
  it('is what createTracing makes without a config, and does nothing', () => {
    const tracing = createTracing(undefined, 'pdp-service');
    expect(tracing).toBe(NO_TRACING);
    expect(tracing.enabled).toBe(false);
    const span = tracing.startSpan('custos.decision', { headers: { traceparent: TRACEPARENT } });
    expect(span.isRecording()).toBe(false);
    const headers: Record<string, string> = {};
    tracing.inject(span, headers);
    expect(headers).toEqual({});
    expect(tracing.withSpan(span, () => tracing.activeSpanContext())).toBeUndefined();
  });

  it('adds no handler to a mounted route', () => {
    const route = routesFor<object>()({ method: 'get', path: '/x', summary: 'x', responses: { 200: jsonResponse('x', {}) }, handler: (_req, res) => void res.json(1) });
    expect(routeHandlers(route, {}, { tracing: NO_TRACING })).toHaveLength(routeHandlers(route, {}).length);
    expect(routeHandlers(route, {}, { tracing: createTracing(undefined, 'x', { spanProcessor: new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() }) }) })).toHaveLength(
      routeHandlers(route, {}).length + 1,
    );
  });
});

describe('tracing on', () => {
  const exporter = new InMemorySpanExporter();
  const tracing = createTracing(undefined, 'test-service', { spanProcessor: new SimpleSpanProcessor({ exporter }) });
  afterEach(() => exporter.reset());
  afterAll(() => tracing.shutdown());

  it('continues the traceparent of incoming headers, and starts a root without one', () => {
    const child = tracing.startSpan('continued', { kind: 'server', headers: { traceparent: TRACEPARENT, tracestate: 'vendor=1' } });
    expect(child.spanContext().traceId).toBe(PARENT_TRACE);
    expect(child.spanContext().traceState?.get('vendor')).toBe('1');
    const root = tracing.startSpan('root', { headers: { traceparent: 'garbage' } });
    expect(root.spanContext().traceId).not.toBe(PARENT_TRACE);
    tracing.end(child);
    tracing.end(root, new Error('it failed'));
    const [continued, started] = exporter.getFinishedSpans();
    expect(continued?.parentSpanContext?.spanId).toBe(PARENT_SPAN);
    expect(started?.parentSpanContext).toBeUndefined();
    expect(started?.status).toEqual({ code: 2, message: 'it failed' });
    expect(continued?.resource.attributes['service.name']).toBe('test-service');
  });

  it('carries the active span through awaits, and writes it as the traceparent of an outgoing call', async () => {
    const parent = tracing.startSpan('decision');
    const inner = await tracing.withSpan(parent, async () => {
      await new Promise((resolve) => setImmediate(resolve));
      expect(tracing.activeSpanContext()?.spanId).toBe(parent.spanContext().spanId);
      return tracing.startSpan('pip call', { kind: 'client' });
    });
    expect(tracing.activeSpanContext()).toBeUndefined();
    const headers: Record<string, string> = {};
    tracing.inject(inner, headers);
    const { traceId, spanId } = inner.spanContext();
    expect(headers.traceparent).toBe(`00-${traceId}-${spanId}-01`);
    expect(traceId).toBe(parent.spanContext().traceId);
    const rooted = tracing.withSpan(parent, () => tracing.startSpan('tick', { root: true }));
    expect(rooted.spanContext().traceId).not.toBe(traceId);
  });

  it('makes one server span per mounted request, named by its route template, with its status', async () => {
    const route = routesFor<object>();
    const routes = [
      route({ method: 'get', path: '/things/{id}', summary: 'a thing', responses: { 200: jsonResponse('a thing', {}) }, handler: (_req, res) => void res.json(1) }),
    ];
    const openapi = serviceDocument({ info: { title: 'Things', version: '1', description: 'things' }, components: {}, routes, tagOf: () => 'things' });
    const service = createServiceApp({
      service: 'test',
      logger: createLogger('test', 'silent'),
      metrics: createMetrics('tracing_test', false),
      openapi,
      readiness: () => ({ ready: true }),
    });
    mountRoutes(service, routes, {}, { tracing });
    const app = service.finish();
    await request(app).get('/things/t-1').set('traceparent', TRACEPARENT).expect(200);
    await request(app).get('/things/t-2').expect(200);
    const spans = exporter.getFinishedSpans();
    expect(spans.map((span) => span.name)).toEqual(['GET /things/{id}', 'GET /things/{id}']);
    expect(spans[0]?.parentSpanContext?.spanId).toBe(PARENT_SPAN);
    expect(spans[0]?.attributes).toMatchObject({ 'http.route': '/things/{id}', 'http.response.status_code': 200 });
    expect(spans[1]?.parentSpanContext).toBeUndefined();
  });
});
