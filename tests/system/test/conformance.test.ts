import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { loadPolicy } from '@custos/policy-engine';
import { call, repoRoot, startStack, TEST_NATS_URL, type RunningService, type Stack } from '@custos/test-kit';

/**
 * The policy engine's conformance cases, replayed through the real HTTP API: pap validates and
 * deploys each case's policies, a pdp process decides its events. Cases that need outside state
 * (event history, PIPs, PXPs, a fixed clock) are decided by the engine's own runner and by the
 * history tests; here run every case that depends on nothing but its policies and events.
 */

interface CaseModifier {
  eventParameter?: string;
  expression?: string;
  method?: string;
  parameters?: Array<{ name: string; value?: unknown }>;
}

interface CaseEvent {
  action?: string;
  parameters?: Record<string, unknown>;
  timestamp?: string;
  now?: string;
  explain?: boolean;
  expect: { allowed: boolean; delayMs?: number; modifiers?: CaseModifier[] };
}

interface ConformanceCase {
  name: string;
  policies: Array<{ id: string; body: string[] } | { xml: string[] }>;
  defaultDecision?: 'allow' | 'inhibit';
  timeZone?: string;
  now?: string;
  ports?: boolean;
  history?: unknown[];
  pip?: unknown[];
  pxp?: unknown[];
  events?: CaseEvent[];
  refused?: Array<{ code: string; line?: number; column?: number; message?: string }>;
}

const CASES_DIR = path.join(repoRoot(), 'packages/policy-engine/test/conformance/cases');

const NAMESPACES = [
  'xmlns="http://www.mydata-control.de/4.0/mydataLanguage"',
  ...['constant', 'event', 'parameter', 'pip', 'variable', 'variableDeclaration', 'valueChanged'].map(
    (prefix) => `xmlns:${prefix}="http://www.mydata-control.de/4.0/${prefix}"`,
  ),
].join(' ');

/** The same document the engine's runner builds: the start tag on line 1, the body from line 2. */
function policyDocument(policy: ConformanceCase['policies'][number]): { id: string; xml: string } {
  if ('xml' in policy) {
    const xml = policy.xml.join('\n');
    const id = /<(?:[\w-]+:)?policy\b[^>]*?\sid\s*=\s*["']([^"']+)["']/.exec(xml)?.[1];
    if (!id) throw new Error('case policy without an id');
    return { id, xml };
  }
  return { id: policy.id, xml: `<policy id="${policy.id}" ${NAMESPACES}>\n${policy.body.join('\n')}\n</policy>` };
}

/** A case whose decisions need a port (history, PIP, PXP in a condition) or a fixed clock. */
const needsOutsideState = (c: ConformanceCase) =>
  c.history !== undefined ||
  c.pip !== undefined ||
  c.pxp !== undefined ||
  c.now !== undefined ||
  c.ports !== undefined ||
  (c.events ?? []).some((e) => e.now !== undefined) ||
  c.policies.some((p) => {
    const outcome = loadPolicy(policyDocument(p).xml);
    return !outcome.ok || outcome.policy.usesPorts;
  });

function wireValue(value: unknown) {
  const complex = typeof value === 'object' && value !== null;
  return { value, type: complex ? 'java.lang.Object' : 'java.lang.String', isComplex: complex };
}

function loadCases(): ConformanceCase[] {
  return readdirSync(CASES_DIR)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .flatMap((file) => JSON.parse(readFileSync(path.join(CASES_DIR, file), 'utf8')) as ConformanceCase[]);
}

/** A zone the pdp can be configured with; cases with a bogus zone test the engine, not the configuration. */
const validZone = (zone: string | undefined) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone ?? 'UTC' });
    return true;
  } catch {
    return false;
  }
};

const allCases = loadCases();
const refusedCases = allCases.filter((c) => c.refused !== undefined);
const decidedCases = allCases.filter((c) => c.refused === undefined && validZone(c.timeZone) && !needsOutsideState(c));
const configOf = (c: ConformanceCase) => `${c.defaultDecision ?? 'allow'}|${c.timeZone ?? 'UTC'}`;

describe('conformance cases through the HTTP API', () => {
  let stack: Stack;
  let token: string;
  const pdps = new Map<string, RunningService>();

  beforeAll(async () => {
    stack = await startStack({ natsUrl: TEST_NATS_URL, replicas: 0 });
    token = await stack.adminToken();
    for (const config of new Set(decidedCases.map(configOf))) {
      const [defaultDecision, timeZone] = config.split('|') as [string, string];
      pdps.set(config, await stack.startPdp(undefined, { DEFAULT_DECISION: defaultDecision, POLICY_TIMEZONE: timeZone }));
    }
  }, 180_000);

  afterAll(() => stack?.stop(), 60_000);

  it('replays most of the corpus', () => {
    // Guards against a filter that silently drops everything.
    expect(decidedCases.length).toBeGreaterThanOrEqual(100);
    expect(refusedCases.length).toBeGreaterThanOrEqual(20);
  });

  it.each(refusedCases.map((c) => [c.name, c] as const))('refuses at add time: %s', async (_name, c) => {
    const { xml } = policyDocument(c.policies[0]!);
    const answer = await call('POST', `${stack.pap.url}/ws/policy`, { token, xml });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('invalid_policy');
    const errors = answer.body.errors as Array<{ message: string; line?: number; column?: number }>;
    for (const [index, expected] of c.refused!.entries()) {
      const actual = errors[index];
      expect(actual).toBeDefined();
      if (expected.message !== undefined) expect(actual!.message).toBe(expected.message);
      if (expected.line !== undefined) expect(actual!.line).toBe(expected.line);
      if (expected.column !== undefined) expect(actual!.column).toBe(expected.column);
    }
    const ids = await call('GET', `${stack.pap.url}/ws/policy-ids`, { token });
    expect(ids.body).toEqual([]);
  });

  it.each(decidedCases.map((c) => [c.name, c] as const))('decides: %s', async (_name, c) => {
    const pdp = pdps.get(configOf(c))!;
    const documents = c.policies.map(policyDocument);
    let revision = 0;
    try {
      for (const { id, xml } of documents) {
        const added = await call('POST', `${stack.pap.url}/ws/policy`, { token, xml });
        expect({ id, status: added.status, body: added.body }).toEqual({ id, status: 201, body: true });
        const deployed = await call('POST', `${stack.pap.url}/ws/policy/${id}/deploy`, { token });
        expect(deployed.body).toBe(true);
        revision = Number(deployed.headers.get('policy-revision'));
      }
      for (const [index, event] of (c.events ?? []).entries()) {
        const [, solution = 'acme', action = 'act'] = /^urn:action:([^:]+):(.+)$/.exec(event.action ?? 'urn:action:acme:act') ?? [];
        const body = {
          actionId: { scope: solution, action },
          timestamp: event.timestamp === undefined ? 0 : Date.parse(event.timestamp),
          parameters: Object.entries(event.parameters ?? {}).map(([name, value]) => ({ name, value: wireValue(value) })),
        };
        const answer = await call('POST', `${pdp.url}/event${event.explain ? '/explain' : ''}`, {
          token,
          json: body,
          headers: { 'Min-Policy-Revision': String(revision) },
        });
        expect({ event: index, status: answer.status }).toEqual({ event: index, status: 200 });
        expect({ event: index, allowed: answer.body.eventAllowed }).toEqual({ event: index, allowed: event.expect.allowed });
        if (event.expect.delayMs !== undefined) expect(answer.body.delay).toBe(event.expect.delayMs);
        if (event.expect.modifiers !== undefined) {
          expect(answer.body.modifiers).toHaveLength(event.expect.modifiers.length);
          for (const [m, expected] of event.expect.modifiers.entries()) {
            const actual = answer.body.modifiers[m];
            if (expected.eventParameter !== undefined) expect(actual.name).toBe(expected.eventParameter);
            if (expected.expression !== undefined) expect(actual.expression).toBe(expected.expression);
            if (expected.method !== undefined) expect(actual.engine[0].method).toBe(expected.method);
            for (const [p, parameter] of (expected.parameters ?? []).entries()) {
              expect(actual.engine[0].parameters[p].name).toBe(parameter.name);
              if ('value' in parameter) expect(actual.engine[0].parameters[p].value.value).toEqual(parameter.value);
            }
          }
        }
      }
    } finally {
      for (const { id } of documents) await call('DELETE', `${stack.pap.url}/ws/policy/${id}`, { token });
    }
  });
});
