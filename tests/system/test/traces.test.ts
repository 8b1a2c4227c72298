import { ROOT_CONTEXT, defaultTextMapSetter, trace, type Context } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { CustosClient, event } from '@custos/pep';
import { call, startStack, TEST_NATS_URL, waitFor, type Stack } from '@custos/test-kit';
import { HeaderKeepingPip, OtlpReceiver, type ReceivedSpan } from './otlp-receiver';
import { NS, defined, deploy, registerPep } from './pep-support';

/**
 * OpenTelemetry traces across processes (issue 24): this test is the PEP, with its own tracer exporting to memory;
 * auth, pap and the pdp are real processes exporting OTLP/HTTP JSON to a receiver the test runs, and the pdp calls a
 * PIP the test runs. One trace must run PEP span → the pdp's decision span → its PIP call span (and its history batch),
 * and the PIP must have been sent the W3C `traceparent` of that call.
 */
const RUN = `r${Date.now().toString(36)}`;
const ACTION = `open-${RUN}`;
const PIP_METHOD = `urn:info:acme:role-${RUN}`;
const POLICY = `<policy ${NS} xmlns:pip="http://www.mydata-control.de/4.0/pip" id="urn:policy:acme:traced-${RUN}">
  <mechanism event="urn:action:acme:${ACTION}">
    <if>
      <and>
        <equals><pip:string method="${PIP_METHOD}" default="nobody"><parameter:string name="user"><event:string eventParameter="user" default=""/></parameter:string></pip:string><constant:string value="admin"/></equals>
        <less><count><eventOccurrence event="urn:action:acme:${ACTION}"/><when fixedTime="always"/></count><constant:number value="1000"/></less>
      </and>
      <then><allow/></then>
    </if>
    <else><inhibit/></else>
  </mechanism>
</policy>`;

const traceparentOf = (context: Context): string => {
  const carrier: Record<string, string> = {};
  new W3CTraceContextPropagator().inject(context, carrier, defaultTextMapSetter);
  return defined(carrier.traceparent, 'the traceparent');
};

describe('traces from a PEP through the pdp to a PIP', () => {
  let stack: Stack;
  let receiver: OtlpReceiver;
  let pip: HeaderKeepingPip;
  let admin: string;
  const pepSpans = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: pepSpans })] });
  const tracer = provider.getTracer('the-pep');

  beforeAll(async () => {
    receiver = await new OtlpReceiver().start();
    pip = await new HeaderKeepingPip('admin').start();
    stack = await startStack({
      natsUrl: TEST_NATS_URL,
      replicas: 1,
      extraEnv: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50' },
    });
    admin = await stack.adminToken();
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    await receiver?.stop();
    await pip?.stop();
    await provider.shutdown();
  }, 60_000);

  const spansOf = (traceId: string): ReceivedSpan[] => receiver.spans.filter((span) => span.traceId === traceId);

  it('continues a management request’s traceparent in pap’s request span', async () => {
    const operator = tracer.startSpan('register the pip');
    const context = operator.spanContext();
    const registered = await call('POST', `${stack.pap.url}/ws/component`, {
      token: admin,
      headers: { traceparent: traceparentOf(trace.setSpan(ROOT_CONTEXT, operator)) },
      json: {
        id: { componentType: 'PIP', identifier: `urn:component:acme:pip:${RUN}` },
        urls: [pip.url],
        componentInterfaces: [{ type: 'InterfaceDescription', methodName: PIP_METHOD, returnType: 'java.lang.Object', parameters: [] }],
      },
    });
    operator.end();
    expect(registered.body).toBe(true);
    await waitFor(() => spansOf(context.traceId).length > 0, { what: 'pap’s span of the request' });
    const [request] = spansOf(context.traceId);
    expect(request).toMatchObject({ service: 'pap-service', name: 'POST /ws/component', parentSpanId: context.spanId });
    expect(request?.attributes['http.response.status_code']).toBe(200);
  }, 60_000);

  it('links the PEP’s span to the pdp’s decision, its history batch and its PIP call, and sends the PIP the traceparent', async () => {
    const revision = await deploy(stack, admin, POLICY);
    const pep = await registerPep(stack, admin);
    const pepSpan = tracer.startSpan('checkout');
    const pepContext = trace.setSpan(ROOT_CONTEXT, pepSpan);
    const custos = new CustosClient({
      pdpUrl: defined(stack.pdps[0], 'the pdp').url,
      authUrl: stack.auth.url,
      clientId: pep.id,
      clientSecret: pep.secret,
      traceHeaders: () => ({ traceparent: traceparentOf(pepContext) }),
    });
    const decision = await custos.decide(event('acme', ACTION, { user: 'ann' }), { minPolicyRevision: revision });
    pepSpan.end();
    expect(decision.eventAllowed).toBe(true);

    const [pepFinished] = pepSpans.getFinishedSpans().filter((span) => span.name === 'checkout');
    const { traceId, spanId: pepSpanId } = defined(pepFinished, 'the PEP span').spanContext();
    const named = (name: string) => spansOf(traceId).find((span) => span.name === name);
    await waitFor(() => ['custos.decision', 'custos.pip.call', 'custos.history.record'].every((name) => named(name) !== undefined), {
      what: 'the pdp’s spans of the decision',
    });
    const decided = defined(named('custos.decision'), 'the decision span');
    expect(decided).toMatchObject({ service: 'pdp-service', parentSpanId: pepSpanId });
    expect(decided.attributes).toMatchObject({ 'custos.decision.id': decision.id.identifier, 'custos.action': `urn:action:acme:${ACTION}`, 'custos.decision': 'allow' });
    const pipCall = defined(named('custos.pip.call'), 'the PIP call span');
    expect(pipCall).toMatchObject({ service: 'pdp-service', parentSpanId: decided.spanId });
    expect(pipCall.attributes['url.full']).toBe(`${pip.url}/execute`);
    const recorded = defined(named('custos.history.record'), 'the history batch span');
    expect(recorded.parentSpanId).toBe(decided.spanId);
    expect(recorded.links).toEqual([expect.objectContaining({ traceId, spanId: decided.spanId })]);

    // The PIP was called once, with the trace context of the pdp's call span.
    expect(pip.headers).toHaveLength(1);
    expect(pip.headers[0]?.traceparent).toBe(`00-${traceId}-${pipCall.spanId}-01`);
    expect(receiver.refused).toEqual([]);
  }, 60_000);
});
