import { isDeepStrictEqual } from 'node:util';
import {
  call,
  createClient,
  eventBody,
  isProblem,
  leakedSecrets,
  policyXml,
  query,
  securityStack,
  summary,
  TENANT_SCOPES,
  tokenOf,
  tokenSecrets,
  type Answer,
  type Stack,
} from './support/stack';

/**
 * The cross-tenant matrix: clients of two solutions, created through /clients, try every route of
 * pap and pdp on each other's resources. Every attempt is a 403 that looks the same whether the
 * resource exists or not, and nothing changes (checked with the owners' tokens and in the database).
 */
type Solution = 'acme' | 'beta';
const SOLUTIONS: Solution[] = ['acme', 'beta'];
const other = (solution: Solution): Solution => (solution === 'acme' ? 'beta' : 'acme');

let stack: Stack;
let adminToken: string;
const tokens = {} as Record<Solution, string>;
const secrets: string[] = [];

const component = (solution: string, type: 'pep' | 'pip' | 'pxp', name: string) => {
  const identifier = `urn:component:${solution}:${type}:${name}`;
  if (type === 'pep') {
    return {
      id: { componentType: 'PEP', identifier },
      urls: [`http://${solution}.example:9000/pep`],
      componentInterfaces: [
        {
          type: 'PepInterfaceDescription',
          event: { platform: 'web', context: 'hr', action: 'show' },
          preventive: true,
          methodName: `urn:action:${solution}:show`,
          returnType: 'void',
          description: 'a page',
          parameters: [{ name: 'user', description: '', type: 'com.example.User' }],
        },
      ],
    };
  }
  return {
    id: { componentType: type.toUpperCase(), identifier },
    urls: [`http://${solution}.example:9000/${type}`],
    componentInterfaces: [
      {
        type: 'InterfaceDescription',
        methodName: type === 'pip' ? `urn:info:${solution}:role` : `urn:action:${solution}:notify`,
        returnType: type === 'pip' ? 'java.lang.String' : 'java.lang.Boolean',
        description: '',
        parameters: [{ name: 'userId', description: '', type: 'java.lang.String', mandatory: true }],
      },
    ],
  };
};

const papUrl = (path: string) => `${stack.pap.url}${path}`;
const pdpUrl = (path: string) => `${stack.pdps[0]!.url}${path}`;

beforeAll(async () => {
  stack = await securityStack();
  adminToken = await stack.adminToken();
  for (const solution of SOLUTIONS) {
    const client = await createClient(stack, adminToken, [solution], TENANT_SCOPES);
    tokens[solution] = await tokenOf(stack, client);
    secrets.push(client.secret, ...tokenSecrets(tokens[solution]));
    const token = tokens[solution];
    for (const type of ['pep', 'pip', 'pxp'] as const) {
      expect((await call('POST', papUrl('/ws/component'), { token, json: component(solution, type, 'main') })).status).toBe(200);
    }
    expect((await call('POST', papUrl('/ws/policy'), { token, xml: policyXml(solution, 'deployed', 'show') })).status).toBe(201);
    expect((await call('POST', papUrl('/ws/policy'), { token, xml: policyXml(solution, 'draft', 'print') })).status).toBe(201);
    expect((await call('POST', papUrl(`/ws/policy/urn:policy:${solution}:deployed/deploy`), { token })).body).toBe(true);
  }
  secrets.push(...tokenSecrets(adminToken), stack.env.BOOTSTRAP_CLIENT_SECRET!);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

interface Snapshot {
  views: Record<string, unknown>;
  rows: unknown;
  revision: unknown;
}

/** Everything a tenant owns, as its own token sees it, plus the database rows and pap's revision. */
async function snapshot(solution: Solution): Promise<Snapshot> {
  const token = tokens[solution];
  const views: Record<string, unknown> = {};
  for (const path of ['/ws/component', '/ws/policy-ids', '/ws/policy-ids/deployed', '/ws/policy/deployed']) {
    views[path] = (await call('GET', papUrl(path), { token })).body;
  }
  for (const name of ['deployed', 'draft']) {
    const id = `urn:policy:${solution}:${name}`;
    views[id] = (await call('GET', papUrl(`/ws/policy/${id}`), { token })).body;
    views[`${id}/status`] = (await call('GET', papUrl(`/ws/policy/${id}/status`), { token })).body;
  }
  const decision = await call('POST', pdpUrl('/event'), { token, json: eventBody(solution, 'show') });
  views.decision = decision.body.eventAllowed;
  const rows = {
    policies: await query(stack, 'SELECT id, deployed, xml, updated_at FROM pap.policies WHERE solution = $1 ORDER BY id', [solution]),
    components: await query(stack, 'SELECT id, body, updated_at FROM pap.components WHERE solution = $1 ORDER BY id', [solution]),
  };
  const revision = (await call('GET', papUrl('/health/ready'))).body.revision;
  return { views, rows, revision };
}

interface Attempt {
  route: string;
  /** The call on the victim's resource, or on a resource of the victim's solution that does not exist. */
  send(attacker: Solution, victim: Solution, id: 'existing' | 'missing'): Promise<Answer>;
}

const policyId = (victim: Solution, id: 'existing' | 'missing') => `urn:policy:${victim}:${id === 'existing' ? 'deployed' : 'missing'}`;
const componentId = (victim: Solution, id: 'existing' | 'missing') => `urn:component:${victim}:pip:${id === 'existing' ? 'main' : 'missing'}`;
const action = (id: 'existing' | 'missing') => (id === 'existing' ? 'show' : 'unused');

const ATTEMPTS: Attempt[] = [
  { route: 'GET /ws/component/{id}', send: (a, v, id) => call('GET', papUrl(`/ws/component/${componentId(v, id)}`), { token: tokens[a] }) },
  { route: 'DELETE /ws/component/{id}', send: (a, v, id) => call('DELETE', papUrl(`/ws/component/${componentId(v, id)}`), { token: tokens[a] }) },
  {
    route: 'POST /ws/component (overwrite)',
    send: (a, v, id) => call('POST', papUrl('/ws/component'), { token: tokens[a], json: component(v, 'pip', id === 'existing' ? 'main' : 'missing') }),
  },
  {
    route: 'POST /ws/policy (add)',
    send: (a, v, id) => call('POST', papUrl('/ws/policy'), { token: tokens[a], xml: policyXml(v, id === 'existing' ? 'deployed' : 'missing', 'show', '<if><constant:false/><then><inhibit/></then></if>') }),
  },
  {
    route: 'PUT /ws/policy/{id} (replace)',
    send: (a, v, id) =>
      call('PUT', papUrl(`/ws/policy/${policyId(v, id)}`), {
        token: tokens[a],
        xml: policyXml(v, id === 'existing' ? 'deployed' : 'missing', 'show', '<if><constant:false/><then><inhibit/></then></if>'),
      }),
  },
  { route: 'GET /ws/policy/{id} (json)', send: (a, v, id) => call('GET', papUrl(`/ws/policy/${policyId(v, id)}`), { token: tokens[a] }) },
  {
    route: 'GET /ws/policy/{id} (xml)',
    send: (a, v, id) => call('GET', papUrl(`/ws/policy/${policyId(v, id)}`), { token: tokens[a], headers: { Accept: 'application/xml' } }),
  },
  { route: 'POST /ws/policy/{id}/deploy', send: (a, v, id) => call('POST', papUrl(`/ws/policy/${policyId(v, id)}/deploy`), { token: tokens[a] }) },
  { route: 'GET /ws/policy/{id}/revoke', send: (a, v, id) => call('GET', papUrl(`/ws/policy/${policyId(v, id)}/revoke`), { token: tokens[a] }) },
  { route: 'POST /ws/policy/{id}/revoke', send: (a, v, id) => call('POST', papUrl(`/ws/policy/${policyId(v, id)}/revoke`), { token: tokens[a] }) },
  { route: 'DELETE /ws/policy/{id}', send: (a, v, id) => call('DELETE', papUrl(`/ws/policy/${policyId(v, id)}`), { token: tokens[a] }) },
  { route: 'GET /ws/policy/{id}/status', send: (a, v, id) => call('GET', papUrl(`/ws/policy/${policyId(v, id)}/status`), { token: tokens[a] }) },
  {
    // The attacker's own valid item first: refused as a whole, nothing of its own is stored either.
    route: 'POST /ws/changes (deploy and remove)',
    send: (a, v, id) =>
      call('POST', papUrl('/ws/changes'), {
        token: tokens[a],
        json: {
          changes: [
            { op: 'revoke', kind: 'policy', id: `urn:policy:${a}:deployed` },
            { op: 'deploy', kind: 'policy', id: policyId(v, id) },
            { op: 'remove', kind: 'policy', id: policyId(v, id) },
          ],
        },
      }),
  },
  {
    route: 'POST /ws/changes (replace)',
    send: (a, v, id) =>
      call('POST', papUrl('/ws/changes'), {
        token: tokens[a],
        json: { changes: [{ op: 'replace', kind: 'policy', xml: policyXml(v, id === 'existing' ? 'deployed' : 'missing', 'show', '<if><constant:false/><then><inhibit/></then></if>') }] },
      }),
  },
  { route: 'POST /event', send: (a, v, id) => call('POST', pdpUrl('/event'), { token: tokens[a], json: eventBody(v, action(id)) }) },
  {
    route: 'POST /event (urn form)',
    send: (a, v, id) =>
      call('POST', pdpUrl('/event'), { token: tokens[a], json: { ...eventBody(v, 'x'), actionId: { urn: `urn:action:${v}:${action(id)}` } } }),
  },
  {
    route: 'POST /event with Min-Policy-Revision',
    send: (a, v, id) => call('POST', pdpUrl('/event'), { token: tokens[a], json: eventBody(v, action(id)), headers: { 'Min-Policy-Revision': '999999' } }),
  },
  { route: 'POST /event/explain', send: (a, v, id) => call('POST', pdpUrl('/event/explain'), { token: tokens[a], json: eventBody(v, action(id)) }) },
];

describe('cross-tenant matrix', () => {
  let before: Record<Solution, Snapshot>;
  /** Attempts made so far: the final checks prove they ran after all of them. */
  let attempted = 0;

  beforeAll(async () => {
    before = { acme: await snapshot('acme'), beta: await snapshot('beta') };
    // The owners see their own things: the snapshots are not empty by accident.
    for (const solution of SOLUTIONS) {
      expect(before[solution].views['/ws/policy-ids']).toEqual([
        { identifier: `urn:policy:${solution}:deployed` },
        { identifier: `urn:policy:${solution}:draft` },
      ]);
      expect(before[solution].views.decision).toBe(false);
    }
  });

  for (const attacker of SOLUTIONS) {
    const victim = other(attacker);
    describe(`${attacker} against ${victim}`, () => {
      it.each(ATTEMPTS.map((attempt) => [attempt.route, attempt] as const))('%s: 403, the same for an existing and a missing resource', async (_route, attempt) => {
        const existing = await attempt.send(attacker, victim, 'existing');
        const missing = await attempt.send(attacker, victim, 'missing');
        attempted += 1;
        expect(summary(existing)).toEqual({ status: 403, code: 'insufficient_scope', detail: expect.any(String) });
        expect(isProblem(existing, 403, 'insufficient_scope')).toBe(true);
        expect(existing.headers.get('www-authenticate')).toMatch(/error="insufficient_scope"/);
        // Indistinguishable: same status, body and challenge; no revision or location hints.
        expect(isDeepStrictEqual(existing.body, missing.body)).toBe(true);
        expect(missing.status).toBe(existing.status);
        expect(missing.headers.get('www-authenticate')).toBe(existing.headers.get('www-authenticate'));
        for (const answer of [existing, missing]) {
          expect(answer.headers.get('policy-revision')).toBeNull();
          expect(answer.headers.get('location')).toBeNull();
          expect(JSON.stringify(answer.body)).not.toContain(`${victim}:`);
        }
      });

      it('lists show only its own solution', async () => {
        const token = tokens[attacker];
        for (const path of ['/ws/component', '/ws/component?type=PIP', '/ws/component?type=PEP', '/ws/component?type=pxp', '/ws/policy/deployed', '/ws/policy-ids', '/ws/policy-ids/deployed']) {
          const answer = await call('GET', papUrl(path), { token });
          expect({ path, status: answer.status }).toEqual({ path, status: 200 });
          const text = JSON.stringify(answer.body);
          expect({ path, own: text.includes(`:${attacker}:`) }).toEqual({ path, own: true });
          expect({ path, foreign: text.includes(`:${victim}:`) }).toEqual({ path, foreign: false });
        }
      });

      it('its own explanations name only its own policies', async () => {
        const explained = await call('POST', pdpUrl('/event/explain'), { token: tokens[attacker], json: eventBody(attacker, 'show') });
        expect(explained.status).toBe(200);
        expect(explained.body.explanation.map((m: { policyId: string }) => m.policyId)).toEqual([`urn:policy:${attacker}:deployed`]);
        expect(JSON.stringify(explained.body)).not.toContain(victim);
      });

      it('its own policies and components cannot reach into the other solution (PIPs, PXPs, actions, history)', async () => {
        const token = tokens[attacker];
        const reaching = {
          mechanism: policyXml(attacker, 'reach-1', 'show').replace(`event="urn:action:${attacker}:show"`, `event="urn:action:${victim}:show"`),
          pip: policyXml(
            attacker,
            'reach-2',
            'show',
            `<if><equals><pip:string xmlns:pip="http://www.mydata-control.de/4.0/pip" method="urn:info:${victim}:role" default=""/><constant:string value="x"/></equals><then><inhibit/></then></if>`,
          ),
          execute: policyXml(attacker, 'reach-3', 'show', `<if><constant:true/><then><allow/><execute action="urn:action:${victim}:notify"/></then></if>`),
          history: policyXml(
            attacker,
            'reach-4',
            'show',
            `<if><less><count><eventOccurrence event="urn:action:${victim}:show"/><when fixedTime="today"/></count><constant:number value="3"/></less><then><allow/></then></if>`,
          ),
        };
        for (const [what, xml] of Object.entries(reaching)) {
          const answer = await call('POST', papUrl('/ws/policy'), { token, xml });
          expect({ what, ...summary(answer) }).toEqual({ what, status: 400, code: 'invalid_policy', detail: expect.any(String) });
          expect(JSON.stringify(answer.body.errors)).toContain(victim);
        }
        const pip = component(attacker, 'pip', 'reach');
        pip.componentInterfaces[0]!.methodName = `urn:info:${victim}:role`;
        const pxp = component(attacker, 'pxp', 'reach');
        pxp.componentInterfaces[0]!.methodName = `urn:action:${victim}:notify`;
        for (const body of [pip, pxp]) {
          const answer = await call('POST', papUrl('/ws/component'), { token, json: body });
          expect(summary(answer)).toEqual({ status: 400, code: 'invalid_component', detail: expect.any(String) });
        }
      });
    });
  }

  it('nothing changed for either tenant', async () => {
    expect(attempted).toBe(SOLUTIONS.length * ATTEMPTS.length);
    for (const solution of SOLUTIONS) {
      expect(await snapshot(solution)).toEqual(before[solution]);
    }
  });

  it('an administrator of every solution sees both (the filters are not empty by construction)', async () => {
    const ids = (await call('GET', papUrl('/ws/policy-ids'), { token: adminToken })).body as Array<{ identifier: string }>;
    expect(ids.map((id) => id.identifier)).toEqual(
      expect.arrayContaining(['urn:policy:acme:deployed', 'urn:policy:acme:draft', 'urn:policy:beta:deployed', 'urn:policy:beta:draft']),
    );
    const components = (await call('GET', papUrl('/ws/component'), { token: adminToken })).body as unknown[];
    expect(components).toHaveLength(6);
  });

  it('no secret of either tenant leaked into outputs or metrics', async () => {
    expect(await leakedSecrets([stack.auth, stack.pap, ...stack.pdps], secrets)).toEqual([]);
  });
});
