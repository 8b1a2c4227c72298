import {
  HEADERS,
  type AuditPage,
  parseWarnings,
  type AuthorizationDecision,
  type Component,
  type DecisionRecordsAnswer,
  type DecisionRecordWire,
  type DocumentCheck,
  type DocumentRestoreAnswer,
  type DocumentVersions,
  type DocumentVersionText,
  type Event,
  type SolutionSettings,
  type SolutionSettingsAnswer,
  type SolutionSettingsChangeAnswer,
  type TimerSchedule,
  type Warning,
} from '@custos/contracts';
import { apiErrorOf } from './problem';

export type DocumentKindName = 'policy' | 'timer';

/** A policy or timer as pap shows it (api.md §4); timers carry `cron`, policies `name`. */
export interface StoredDocument {
  id: { identifier: string };
  name?: string | null;
  description: string | null;
  cron?: string;
  deployed: boolean;
  xml: string;
  createdAt: string;
  updatedAt: string;
}

/** What pap's console explain answers: the pdp's explained decision and the event after its modifiers. */
export interface ExplainResult {
  revision: number | null;
  decision: ExplainedDecision;
  modifiedEvent: Event | null;
  modifyError: string | null;
}

export interface ExplainedDecision extends AuthorizationDecision {
  explanation: unknown[];
  policyRevision?: number;
}

export interface ReplicaView {
  replica: string;
  ready: boolean;
  revision: number | null;
  lag: number | null;
  lagMs: number | null;
  natsConnected: boolean;
  lastSeenAt: string;
  stale: boolean;
}

export interface ReplicasAnswer {
  revision: number;
  replicas: ReplicaView[];
}

export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/** A boolean answer of a change, with the revision it took effect at when it changed the deployed set. */
export interface ChangeResult {
  result: boolean;
  revision: number | undefined;
}

async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A registration's answer: pap's `Custos-Warning` lines come with it (api.md, warnings). */
export interface RegisterResult extends ChangeResult {
  warnings: Warning[];
}

const revisionOf = (response: Response): number | undefined => {
  const header = response.headers.get('Policy-Revision');
  return header === null || !/^\d+$/.test(header) ? undefined : Number(header);
};

/** Every call the console makes, all to pap's own origin (pap forwards token requests and explanations). */
export class ConsoleApi {
  constructor(
    private readonly token: string,
    private readonly fetchImpl: Fetch = (input, init) => fetch(input, init),
  ) {}

  private async call(method: string, path: string, init: { body?: string; type?: string; accept?: string; headers?: Record<string, string> } = {}): Promise<{ body: unknown; response: Response }> {
    const headers: Record<string, string> = { Authorization: `Bearer ${this.token}`, Accept: init.accept ?? 'application/json', ...init.headers };
    if (init.type !== undefined) headers['Content-Type'] = init.type;
    // Every call carries the token or the secret: a redirect, even from pap's own origin, is an error, never followed.
    const response = await this.fetchImpl(path, { method, headers, redirect: 'error', ...(init.body === undefined ? {} : { body: init.body }) });
    const body = await bodyOf(response);
    if (!response.ok) throw apiErrorOf(response.status, body);
    return { body, response };
  }

  private async change(method: string, path: string, init: { body?: string; type?: string } = {}): Promise<ChangeResult> {
    const { body, response } = await this.call(method, path, init);
    return { result: body === true, revision: revisionOf(response) };
  }

  async documentIds(kind: DocumentKindName): Promise<string[]> {
    const { body } = await this.call('GET', `/ws/${kind}-ids`);
    return (body as Array<{ identifier: string }>).map((id) => id.identifier);
  }

  async document(kind: DocumentKindName, id: string): Promise<StoredDocument> {
    return (await this.call('GET', `/ws/${kind}/${encodeURIComponent(id)}`)).body as StoredDocument;
  }

  /** Every document of the kind in full: the ids, then each one (pap has no list of whole undeployed documents). */
  async documents(kind: DocumentKindName): Promise<StoredDocument[]> {
    const ids = await this.documentIds(kind);
    return Promise.all(ids.map((id) => this.document(kind, id)));
  }

  /**
   * What pap would say of the document if it were added: a 200 either way (`valid`, and the add's located problems),
   * so the editor's check on every keystroke is no failed request. Stores nothing.
   */
  async validate(kind: DocumentKindName, xml: string): Promise<DocumentCheck> {
    return (await this.call('POST', `/ws/${kind}/validate`, { body: xml, type: 'application/xml' })).body as DocumentCheck;
  }

  add(kind: DocumentKindName, xml: string): Promise<ChangeResult> {
    return this.change('POST', `/ws/${kind}`, { body: xml, type: 'application/xml' });
  }

  replace(kind: DocumentKindName, id: string, xml: string): Promise<ChangeResult> {
    return this.change('PUT', `/ws/${kind}/${encodeURIComponent(id)}`, { body: xml, type: 'application/xml' });
  }

  /** Every text the document was stored with, oldest first (pap `GET /ws/{kind}/{id}/versions`). */
  async versions(kind: DocumentKindName, id: string): Promise<DocumentVersions> {
    return (await this.call('GET', `/ws/${kind}/${encodeURIComponent(id)}/versions`)).body as DocumentVersions;
  }

  /** One version with its text. */
  async version(kind: DocumentKindName, id: string, n: number): Promise<DocumentVersionText> {
    return (await this.call('GET', `/ws/${kind}/${encodeURIComponent(id)}/versions/${n}`)).body as DocumentVersionText;
  }

  /** Makes version n's text current as a new version; `deploy` deploys an undeployed document too (one revision). */
  async restore(kind: DocumentKindName, id: string, n: number, deploy: boolean): Promise<DocumentRestoreAnswer> {
    const path = `/ws/${kind}/${encodeURIComponent(id)}/versions/${n}/restore${deploy ? '?deploy=true' : ''}`;
    return (await this.call('POST', path)).body as DocumentRestoreAnswer;
  }

  /** When a timer fires next (pap's `GET /ws/timer/{id}/schedule`, in the pdps' `POLICY_TIMEZONE`). */
  async timerSchedule(id: string): Promise<TimerSchedule> {
    return (await this.call('GET', `/ws/timer/${encodeURIComponent(id)}/schedule`)).body as TimerSchedule;
  }

  deploy(kind: DocumentKindName, id: string): Promise<ChangeResult> {
    return this.change('POST', `/ws/${kind}/${encodeURIComponent(id)}/deploy`);
  }

  /**
   * Deploys every one of `ids` in one change set (pap `POST /ws/changes`): one revision, so every pdp switches to all
   * of them at once, or nothing when pap refuses any. `result` tells whether the deployed set changed.
   */
  async deployAll(kind: DocumentKindName, ids: readonly string[]): Promise<ChangeResult> {
    const changes = ids.map((id) => ({ op: 'deploy', kind, id }));
    const { body, response } = await this.call('POST', '/ws/changes', { body: JSON.stringify({ changes }), type: 'application/json' });
    return { result: (body as { changed?: unknown } | undefined)?.changed === true, revision: revisionOf(response) };
  }

  /** A solution's settings (its default decisions) and the revision they are part of. */
  async solutionSettings(solution: string): Promise<SolutionSettingsAnswer> {
    return (await this.call('GET', `/ws/solutions/${encodeURIComponent(solution)}/settings`)).body as SolutionSettingsAnswer;
  }

  /** Replaces a solution's settings; a change is a new revision (`changed`), which the pdps switch to like a deploy. */
  async setSolutionSettings(solution: string, settings: SolutionSettings): Promise<SolutionSettingsChangeAnswer> {
    const path = `/ws/solutions/${encodeURIComponent(solution)}/settings`;
    return (await this.call('PUT', path, { body: JSON.stringify(settings), type: 'application/json' })).body as SolutionSettingsChangeAnswer;
  }

  revoke(kind: DocumentKindName, id: string): Promise<ChangeResult> {
    return this.change('POST', `/ws/${kind}/${encodeURIComponent(id)}/revoke`);
  }

  remove(kind: DocumentKindName, id: string): Promise<ChangeResult> {
    return this.change('DELETE', `/ws/${kind}/${encodeURIComponent(id)}`);
  }

  /** A page of the audit trail (`GET /ws/audit`, scope `audit:read`); `query` holds the filters and the cursor. */
  async audit(query: Readonly<Record<string, string>>): Promise<AuditPage> {
    const search = new URLSearchParams(Object.entries(query).filter(([, value]) => value !== '')).toString();
    return (await this.call('GET', `/ws/audit${search === '' ? '' : `?${search}`}`)).body as AuditPage;
  }

  async components(): Promise<Component[]> {
    return (await this.call('GET', '/ws/component')).body as Component[];
  }

  /** Registers (or replaces) a component; the warnings are pap's advice on a registration it did make. */
  async registerComponent(component: Component): Promise<RegisterResult> {
    const { body, response } = await this.call('POST', '/ws/component', { body: JSON.stringify(component), type: 'application/json' });
    return { result: body === true, revision: revisionOf(response), warnings: parseWarnings(response.headers.get(HEADERS.warning)) };
  }

  unregisterComponent(id: string): Promise<ChangeResult> {
    return this.change('DELETE', `/ws/component/${encodeURIComponent(id)}`);
  }

  async explain(event: Event, minRevision?: number): Promise<ExplainResult> {
    const headers: Record<string, string> = minRevision === undefined ? {} : { 'Min-Policy-Revision': String(minRevision) };
    return (await this.call('POST', '/console/explain', { body: JSON.stringify(event), type: 'application/json', headers })).body as ExplainResult;
  }

  async replicas(): Promise<ReplicasAnswer> {
    return (await this.call('GET', '/ws/replicas')).body as ReplicasAnswer;
  }

  /** Decision records, `query` being `GET /ws/decisions`'s (logic/decisions.ts makes it). */
  async decisions(query: string): Promise<DecisionRecordsAnswer> {
    return (await this.call('GET', `/ws/decisions?${query}`)).body as DecisionRecordsAnswer;
  }

  async decision(decisionId: string): Promise<DecisionRecordWire> {
    return (await this.call('GET', `/ws/decisions/${encodeURIComponent(decisionId)}`)).body as DecisionRecordWire;
  }
}

/** A token from the client credentials grant, through pap's `/console/token`. */
export interface IssuedToken {
  accessToken: string;
  expiresIn: number;
  scope: string;
}

export async function requestToken(clientId: string, secret: string, fetchImpl: Fetch = (input, init) => fetch(input, init)): Promise<IssuedToken> {
  // RFC 6749 §2.3.1: id and secret are form-encoded before they are joined for Basic authentication.
  const basic = btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`);
  const response = await fetchImpl('/console/token', {
    method: 'POST',
    headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
    body: 'grant_type=client_credentials',
    redirect: 'error',
  });
  const body = await bodyOf(response);
  if (!response.ok) throw apiErrorOf(response.status, body);
  const token = body as { access_token: string; expires_in: number; scope?: string };
  return { accessToken: token.access_token, expiresIn: token.expires_in, scope: token.scope ?? '' };
}
