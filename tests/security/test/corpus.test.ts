import {
  call,
  createClient,
  eventBody,
  isRunning,
  leakedSecrets,
  policyXml,
  residentBytes,
  securityStack,
  TENANT_SCOPES,
  tokenOf,
  tokenSecrets,
  type Answer,
  type Stack,
} from './support/stack';
import { readdirSync } from 'node:fs';
import { attackBody, CORPUS_DIR, loadManifest, type Attack } from './support/corpus';

/**
 * The XML/JSON attack corpus (tests/security/corpus): every input gets the answer its manifest
 * entry names, while a normal request sent at the same moment to the same process succeeds, and
 * the processes' memory stays bounded. Durations are recorded and printed, never asserted.
 */
const MEMORY_CEILING_BYTES = 200 * 1024 * 1024;

let stack: Stack;
let token: string;
let revision: string;
const secrets: string[] = [];
const durations: Array<{ attack: string; route: string; status: number; ms: number }> = [];

/** A deployed policy that puts event values where they are serialised and runs hostile regexes. */
const HARDENED = policyXml(
  'acme',
  'hardened',
  'show',
  `<if><or>
      <regex regex="(a+)+$"><event:string eventParameter="text" default=""/></regex>
      <regex regex="(a|aa)*c"><event:string eventParameter="text" default=""/></regex>
      <regex regex="(.*a){25}"><event:string eventParameter="text" default=""/></regex>
      <greater><size><event:list eventParameter="list" jsonPathQuery="$[?match(@, '(a+)+$')]" default="[]"/></size><constant:number value="0"/></greater>
    </or><then><inhibit/></then></if>
    <else><modify eventParameter="p" method="replace"><parameter:list name="replaceWith"><event:list eventParameter="p" default="[]"/></parameter:list></modify></else>`,
);

beforeAll(async () => {
  stack = await securityStack();
  const admin = await stack.adminToken();
  const acme = await createClient(stack, admin, ['acme'], TENANT_SCOPES);
  token = await tokenOf(stack, acme);
  secrets.push(acme.secret, stack.env.BOOTSTRAP_CLIENT_SECRET!, ...tokenSecrets(token), ...tokenSecrets(admin));
  const added = await call('POST', `${stack.pap.url}/ws/policy`, { token, xml: HARDENED });
  expect(added.status).toBe(201);
  const deployed = await call('POST', `${stack.pap.url}/ws/policy/urn:policy:acme:hardened/deploy`, { token });
  expect(deployed.body).toBe(true);
  revision = deployed.headers.get('policy-revision')!;
  const applied = await call('POST', `${stack.pdps[0]!.url}/event`, {
    token,
    json: eventBody('acme', 'show', [{ name: 'p', value: [[1]] }]),
    headers: { 'Min-Policy-Revision': revision },
  });
  expect(applied.body.modifiers).toHaveLength(1); // the value reaches the answer
}, 120_000);

afterAll(async () => {
  if (durations.length > 0) {
    const sorted = [...durations].sort((a, b) => b.ms - a.ms);
    const lines = sorted.map((d) => `${d.ms.toFixed(1).padStart(9)} ms  ${String(d.status).padEnd(4)} ${d.route.padEnd(20)} ${d.attack}`);
    console.log(`attack durations (slowest first; recorded, not asserted):\n${lines.join('\n')}`);
  }
  await stack?.stop();
}, 60_000);

async function send(attack: Attack, route: string): Promise<Answer> {
  const pap = attack.target === 'POST /ws/policy';
  const base = pap ? stack.pap.url : stack.pdps[0]!.url;
  const response = await fetch(`${base}${route}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': attack.contentType ?? (pap ? 'application/xml' : 'application/json'),
    },
    body: attackBody(attack.file),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body };
}

/** A request of an ordinary client, to the same process as the attack. */
function normalRequest(attack: Attack): Promise<Answer> {
  if (attack.target === 'POST /ws/policy') return call('GET', `${stack.pap.url}/ws/policy-ids`, { token });
  return call('POST', `${stack.pdps[0]!.url}/event`, { token, json: eventBody('acme', 'show', [{ name: 'p', value: ['ok'] }]) });
}

function describeAnswer(answer: Answer) {
  const messages = [answer.body?.detail, ...((answer.body?.errors as Array<{ message: string }> | undefined) ?? []).map((e) => e.message)];
  return { status: answer.status, code: answer.body?.code ?? '', messages: messages.filter((m): m is string => typeof m === 'string') };
}

const ATTACKS = loadManifest();
const CASES = ATTACKS.flatMap((attack) =>
  attack.target === 'POST /ws/policy'
    ? [{ attack, route: '/ws/policy' }]
    : [
        { attack, route: '/event' },
        { attack, route: '/event/explain' },
      ],
);

describe('attack corpus', () => {
  let before: { pap: number; pdp: number };

  beforeAll(() => {
    before = { pap: residentBytes(stack.pap), pdp: residentBytes(stack.pdps[0]!) };
  });

  it('the manifest names every data file once at least, and only files that exist', () => {
    const files = ['xml', 'json'].flatMap((dir) => readdirSync(`${CORPUS_DIR}/${dir}`).map((name) => `${dir}/${name}`));
    expect(new Set(ATTACKS.map((attack) => attack.file))).toEqual(new Set(files));
  });

  it.each(CASES.map((c) => [`${c.attack.file} → POST ${c.route}${c.attack.contentType ? ` as ${c.attack.contentType}` : ''}`, c] as const))(
    '%s',
    async (_name, { attack, route }) => {
      const started = process.hrtime.bigint();
      const [answer, normal] = await Promise.all([
        send(attack, route).then((result) => {
          durations.push({ attack: attack.file, route, status: result.status, ms: Number(process.hrtime.bigint() - started) / 1e6 });
          return result;
        }),
        normalRequest(attack),
      ]);
      const seen = describeAnswer(answer);
      expect({ status: seen.status, code: seen.code }).toEqual({ status: attack.expect.status, code: attack.expect.code });
      if (attack.expect.status >= 400) {
        expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(answer.body.type).toBe(`urn:custos:problem:${attack.expect.code}`);
        expect(JSON.stringify(answer.body)).not.toMatch(/\bat .+\(.+:\d+:\d+\)/); // no stack trace
        expect(JSON.stringify(answer.body).length).toBeLessThan(64 * 1024); // errors are bounded, not echoes
      }
      if (attack.expect.match !== undefined) {
        const pattern = new RegExp(attack.expect.match);
        expect({ matched: seen.messages.some((message) => pattern.test(message)), messages: seen.messages.slice(0, 3) }).toEqual({
          matched: true,
          messages: expect.any(Array),
        });
      }
      expect({ normal: normal.status }).toEqual({ normal: 200 });
    },
  );

  it('both processes still run, and their memory stayed bounded', async () => {
    for (const service of [stack.pap, stack.pdps[0]!]) expect(isRunning(service)).toBe(true);
    const after = { pap: residentBytes(stack.pap), pdp: residentBytes(stack.pdps[0]!) };
    const mib = (bytes: number) => Math.round(bytes / 1048576);
    console.log(`resident memory: pap ${mib(before.pap)} → ${mib(after.pap)} MiB, pdp ${mib(before.pdp)} → ${mib(after.pdp)} MiB`);
    expect(after.pap - before.pap).toBeLessThan(MEMORY_CEILING_BYTES);
    expect(after.pdp - before.pdp).toBeLessThan(MEMORY_CEILING_BYTES);
  });

  it('refused policies were not stored; decisions are as before', async () => {
    const ids = (await call('GET', `${stack.pap.url}/ws/policy-ids`, { token })).body as Array<{ identifier: string }>;
    expect(ids.map((id) => id.identifier)).toEqual(['urn:policy:acme:hardened']);
    const decision = await call('POST', `${stack.pdps[0]!.url}/event`, { token, json: eventBody('acme', 'show', [{ name: 'text', value: 'aaa' }]) });
    expect(decision.body.eventAllowed).toBe(false);
  });

  it('no secret leaked into outputs or metrics', async () => {
    expect(await leakedSecrets([stack.auth, stack.pap, ...stack.pdps], secrets)).toEqual([]);
  });
});
