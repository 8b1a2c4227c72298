import type { ComposeProject } from './compose';
import type { LoadReport } from './load';

/** Custos through the compose stack's gateway, as the compose suites drive it. */

/** The README walk-through's policy: Ann is allowed with her first name masked while it is deployed. */
export const MASK_POLICY = 'urn:policy:acme:mask-names';
export const ANN = {
  actionId: { scope: 'acme', action: 'show-employee' },
  timestamp: 1763798400000,
  parameters: [{ name: 'user', value: { value: { id: 'u1', name: { firstName: 'Ann' } }, type: 'com.acme.User', isComplex: true } }],
};

export interface Decision {
  eventAllowed: boolean;
  modifiers: unknown[];
}

export interface ReplicaState {
  replica: string;
  revision: number | null;
  ready: boolean;
  stale: boolean;
}

/** Ann allowed with her first name masked (the walk-through's policy deployed); what was wrong otherwise. */
export const maskedAnn = (response: Response, body: unknown): string | undefined => {
  const decision = body as Decision;
  if (response.status !== 200) return `status ${response.status}: ${JSON.stringify(body)}`;
  return decision.eventAllowed === true && decision.modifiers.length === 1 ? undefined : `wrong decision ${JSON.stringify(body)}`;
};

/** The README's admin client's token (BOOTSTRAP_CLIENT_ID/SECRET of composeProject). */
export async function adminToken(gatewayUrl: string): Promise<string> {
  const response = await fetch(`${gatewayUrl}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from('admin:change-me-now-0123').toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials' }),
    signal: AbortSignal.timeout(30_000),
  });
  if (response.status !== 200) throw new Error(`token request: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

export type GatewayClient = ReturnType<typeof gatewayClient>;

export function gatewayClient(gatewayUrl: string, token: string) {
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${gatewayUrl}${path}`, {
      ...init,
      headers: { Authorization: `Bearer ${token}`, ...(init.headers as Record<string, string> | undefined) },
      signal: AbortSignal.timeout(30_000),
    });
  return {
    call,
    /** Deploys or revokes a policy; the revision it took effect at. Throws unless pap answered 200. */
    change: async (policy: string, verb: 'deploy' | 'revoke') => {
      const response = await call(`/ws/policy/${policy}/${verb}`, { method: 'POST' });
      if (response.status !== 200) throw new Error(`${verb} ${policy}: status ${response.status} ${await response.text()}`);
      return Number(response.headers.get('policy-revision'));
    },
    /** Adds a policy document (XML); throws unless pap took it. */
    addPolicy: async (xml: string) => {
      const response = await call('/ws/policy', { method: 'POST', headers: { 'Content-Type': 'application/xml' }, body: xml });
      if (response.status >= 300) throw new Error(`adding a policy: status ${response.status} ${await response.text()}`);
    },
    /** A decision, as a PEP asks: without `Min-Policy-Revision` unless a test waits for a change. */
    decide: (event: unknown, minRevision?: number) =>
      call('/event', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(minRevision === undefined ? {} : { 'Min-Policy-Revision': String(minRevision) }) },
        body: JSON.stringify(event),
      }),
    /** pap's revision and its view of the replicas: every one heard from lately, at which revision. */
    replicas: async () => {
      const response = await call('/ws/replicas');
      if (response.status !== 200) throw new Error(`/ws/replicas: status ${response.status} ${await response.text()}`);
      const body = (await response.json()) as { revision: number; replicas: ReplicaState[] };
      return { revision: body.revision, replicas: body.replicas.filter((replica) => !replica.stale) };
    },
  };
}

/** Every request of the load answered rightly, at least `atLeast` of them; else the failures beside the gateway's errors. */
export async function expectAllAnswered(project: ComposeProject, report: LoadReport, atLeast: number): Promise<void> {
  if (report.failures.length > 0) {
    // What the gateway said about them: which upstream, which error.
    const { stdout } = await project.compose(['logs', '--no-color', '--tail', '400', 'gateway']);
    const gatewayErrors = stdout.split('\n').filter((line) => /\[(error|warn)\]/.test(line));
    expect({ failures: report.failures, gatewayErrors }).toEqual({ failures: [], gatewayErrors });
  }
  expect(report.succeeded).toBe(report.sent);
  expect(report.sent).toBeGreaterThanOrEqual(atLeast);
}
