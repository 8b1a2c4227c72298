import { request as httpRequest, type ClientRequest } from 'node:http';
import { waitFor, type RunningService } from '@custos/test-kit';
import {
  call,
  createClient,
  eventBody,
  isProblem,
  isRunning,
  leakedSecrets,
  rawRequest,
  securityStack,
  tokenOf,
  tokenSecrets,
  type RawAnswer,
  type Stack,
} from './support/stack';

/**
 * One tenant cannot stall another on a pdp (issue 20): a request's work is bounded (each distinct object is checked
 * once, each batch item within the single-call limit, every request within a budget of values), and each solution
 * is admitted on its own (concurrency and rate, 429 with Retry-After past them) while the others are still served.
 * Real auth, pap and pdp processes; tenant A is `acme`, tenant B (the attacker) `beta`.
 */
const MIB = 1024 * 1024;
let stack: Stack;
/** A pdp with tight per-solution limits: one request in flight, 5 decisions a second. */
let strict: RunningService;
/**
 * A pdp without a rate quota, for the bounded-work tests: their bodies of several MiB are charged a decision per KiB,
 * so under the default quota whether the next one is a 429 would depend on how fast the machine sends them.
 */
let roomy: RunningService;
const tokens = { acme: '', beta: '' };
const secrets: string[] = [];

beforeAll(async () => {
  stack = await securityStack();
  strict = await stack.startPdp(undefined, { PDP_SOLUTION_MAX_CONCURRENCY: '1', PDP_SOLUTION_RATE: '5', PDP_SOLUTION_BURST: '5' });
  roomy = await stack.startPdp(undefined, { PDP_SOLUTION_RATE: '0' });
  const admin = await stack.adminToken();
  const acme = await createClient(stack, admin, ['acme'], ['event:decide']);
  const beta = await createClient(stack, admin, ['beta'], ['event:decide']);
  tokens.acme = await tokenOf(stack, acme);
  tokens.beta = await tokenOf(stack, beta);
  secrets.push(acme.secret, beta.secret, stack.env.BOOTSTRAP_CLIENT_SECRET!, ...tokenSecrets(admin), ...tokenSecrets(tokens.acme), ...tokenSecrets(tokens.beta));
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

const pdp = () => roomy;
const post = (service: RunningService, path: string, token: string, body: string): Promise<RawAnswer> =>
  rawRequest(service.url, 'POST', path, { headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body });
const eventOf = (solution: string) => JSON.stringify(eventBody(solution, 'show', [{ name: 'user', value: 'u1' }]));
/** A context of `keys` keys, as the attack sent it (200,000 keys is about 3 MiB). */
const wideContext = (keys: number) => Object.fromEntries(Array.from({ length: keys }, (_, i) => [`key-${String(i).padStart(7, '0')}`, i]));
const evaluationsOf = (context: unknown, count = 100) =>
  JSON.stringify({
    subject: { type: 'user', id: 'mallory' },
    action: { name: 'read' },
    context,
    evaluations: Array.from({ length: count }, (_, i) => ({ resource: { type: 'document', id: `d${i}` } })),
  });
const paths = (answer: RawAnswer): string[] => (answer.body?.errors ?? []).map((error: { path?: string }) => error.path);

describe('bounded work per request', () => {
  it('the issue’s attack (100 evaluations sharing a 3 MiB default context) is a 413 at `context`, and another tenant is decided meanwhile', async () => {
    const attack = evaluationsOf(wideContext(200_000));
    expect(attack.length).toBeGreaterThan(3 * MIB);
    const attacked = post(pdp(), '/access/v1/evaluations', tokens.beta, attack);
    // Tenant A's events go out while the attack is on its way or being checked; each is decided.
    const others = await Promise.all(Array.from({ length: 5 }, () => post(pdp(), '/event', tokens.acme, eventOf('acme'))));
    expect(others.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    const answer = await attacked;
    expect({ status: answer.status, code: answer.body?.code, paths: paths(answer) }).toEqual({ status: 413, code: 'payload_too_large', paths: ['context'] });
  });

  it('a shared default within the limit is checked once and decided for every evaluation', async () => {
    // About 0.9 MiB: every evaluation with it is within the single-evaluation limit.
    const shared = evaluationsOf(wideContext(45_000));
    const answer = await post(pdp(), '/access/v1/evaluations', tokens.beta, shared);
    expect(answer.status).toBe(200);
    expect(answer.body.evaluations).toHaveLength(100);
    expect((await post(pdp(), '/event', tokens.acme, eventOf('acme'))).status).toBe(200);
  });

  it('a 3 MiB item in a batch is a 413 naming it, as the same event alone is a 413', async () => {
    const huge = eventBody('beta', 'show', [{ name: 'blob', value: 'x'.repeat(3 * MIB) }]);
    const small = eventBody('beta', 'show');
    const alone = await post(pdp(), '/event', tokens.beta, JSON.stringify(huge));
    expect(isProblemAnswer(alone, 413, 'payload_too_large')).toBe(true);
    const batch = await post(pdp(), '/events', tokens.beta, JSON.stringify({ events: [small, small, small, huge] }));
    expect({ status: batch.status, code: batch.body?.code, paths: paths(batch) }).toEqual({ status: 413, code: 'payload_too_large', paths: ['events[3]'] });
    const evaluations = JSON.stringify({
      subject: { type: 'user', id: 'u1' },
      action: { name: 'read' },
      evaluations: [0, 1, 2, 3].map((i) => ({ resource: { type: 'document', id: `d${i}` }, ...(i === 3 ? { context: { blob: 'x'.repeat(3 * MIB) } } : {}) })),
    });
    const authzen = await post(pdp(), '/access/v1/evaluations', tokens.beta, evaluations);
    expect({ status: authzen.status, code: authzen.body?.code, paths: paths(authzen) }).toEqual({
      status: 413,
      code: 'payload_too_large',
      paths: ['evaluations[3].context'],
    });
  });

  it('a batch of values past the request budget is a 413 that says so, before anything is decided', async () => {
    // Four events of 300,000 numbers each: every one within 1 MiB, together past the budget of 1,000,000 values.
    const dense = eventBody('beta', 'show', [{ name: 'values', value: Array.from({ length: 300_000 }, () => 0) }]);
    const answer = await post(pdp(), '/events', tokens.beta, JSON.stringify({ events: [dense, dense, dense, dense] }));
    expect({ status: answer.status, code: answer.body?.code }).toEqual({ status: 413, code: 'payload_too_large' });
    expect(answer.body.detail).toContain('1000000 json values');
    expect((await post(pdp(), '/events', tokens.beta, JSON.stringify({ events: [dense] }))).status).toBe(200);
  });
});

/** A request whose body is sent in two parts: it holds its place in flight until `finish` sends the rest. */
function slowRequest(service: RunningService, token: string, body: string): { finish(): Promise<RawAnswer>; request: ClientRequest } {
  const { hostname, port } = new URL(service.url);
  let resolveAnswer: (answer: RawAnswer) => void = () => undefined;
  let rejectAnswer: (error: Error) => void = () => undefined;
  const answered = new Promise<RawAnswer>((resolve, reject) => {
    resolveAnswer = resolve;
    rejectAnswer = reject;
  });
  const request = httpRequest(
    { host: hostname, port, method: 'POST', path: '/event', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
    (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolveAnswer({ status: res.statusCode ?? 0, headers: res.headers, text, body: text === '' ? undefined : JSON.parse(text) });
      });
    },
  );
  request.on('error', rejectAnswer);
  // A request the test abandons is never awaited: its failure is expected, not an unhandled rejection.
  answered.catch(() => undefined);
  const half = Math.floor(body.length / 2);
  request.write(body.slice(0, half));
  return {
    request,
    finish: () => {
      request.end(body.slice(half));
      return answered;
    },
  };
}

async function inFlight(service: RunningService, solution: string): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  const match = new RegExp(`^decision_requests_in_flight\\{solution="${solution}"[^}]*\\} (\\d+)$`, 'm').exec(text);
  return match ? Number(match[1]) : 0;
}

describe('admission per solution', () => {
  it('past a solution’s concurrency: 429 with Retry-After, while another solution is still decided', async () => {
    const held = slowRequest(strict, tokens.beta, eventOf('beta'));
    // B's first request is admitted and in flight (its body is not complete yet).
    await waitFor(async () => (await inFlight(strict, 'beta')) === 1, { what: 'the first request of beta to be in flight' });
    const refused = await post(strict, '/event', tokens.beta, eventOf('beta'));
    expect(isProblemAnswer(refused, 429, 'too_many_requests')).toBe(true);
    expect(refused.headers['retry-after']).toBe('1');
    // Tenant A is still served while B is at its limit.
    const served = await post(strict, '/event', tokens.acme, eventOf('acme'));
    expect(served.status).toBe(200);
    const first = await held.finish();
    expect(first.status).toBe(200);
    expect(await inFlight(strict, 'beta')).toBe(0);
  });

  it('a client that goes away in the middle of its body gives its place back', async () => {
    const abandoned = slowRequest(strict, tokens.beta, eventOf('beta'));
    await waitFor(async () => (await inFlight(strict, 'beta')) === 1, { what: 'the abandoned request of beta to be in flight' });
    abandoned.request.destroy();
    await waitFor(async () => (await inFlight(strict, 'beta')) === 0, { what: 'the place of the abandoned request to be free again' });
    expect((await post(strict, '/event', tokens.beta, eventOf('beta'))).status).toBe(200);
  });

  it('past a solution’s rate: a batch leaves a debt, the next request is a 429 whose Retry-After counts it', async () => {
    // The bucket holds 5 decisions; a batch of 40 takes it 35 below zero at 5 a second: about 7 s.
    const batch = await post(strict, '/events', tokens.beta, JSON.stringify({ events: Array.from({ length: 40 }, () => eventBody('beta', 'show')) }));
    expect(batch.status).toBe(200);
    const refused = await post(strict, '/event', tokens.beta, eventOf('beta'));
    expect({ status: refused.status, code: refused.body?.code }).toEqual({ status: 429, code: 'too_many_requests' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(5);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(8);
    expect((await post(strict, '/event', tokens.acme, eventOf('acme'))).status).toBe(200);
  });

  it('counts admitted and refused requests per solution in /metrics', async () => {
    const text = await (await fetch(`${strict.url}/metrics`)).text();
    const value = (name: string, labels: string) => Number(new RegExp(`^${name}\\{${labels}[^}]*\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 'NaN');
    expect(value('decision_requests_refused_total', 'solution="beta",reason="concurrency"')).toBe(1);
    expect(value('decision_requests_refused_total', 'solution="beta",reason="rate"')).toBe(1);
    expect(value('decision_requests_refused_total', 'solution="acme",reason="rate"')).toBe(0);
    expect(value('decision_requests_admitted_total', 'solution="acme"')).toBeGreaterThanOrEqual(2);
  });
});

function isProblemAnswer(answer: RawAnswer, status: number, code: string): boolean {
  return isProblem({ status: answer.status, headers: new Headers({ 'content-type': String(answer.headers['content-type'] ?? '') }), body: answer.body }, status, code);
}

describe('afterwards', () => {
  it('every process still runs and answers', async () => {
    for (const service of [stack.auth, stack.pap, ...stack.pdps, strict, roomy]) {
      expect(isRunning(service)).toBe(true);
      expect((await call('GET', `${service.url}/health/live`)).status).toBe(200);
    }
  });

  it('no secret leaked into outputs or metrics', async () => {
    expect(await leakedSecrets([stack.auth, stack.pap, ...stack.pdps, strict, roomy], secrets)).toEqual([]);
  });
});
