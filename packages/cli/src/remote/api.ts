import type { Session } from './config-store';
import { writeSession } from './config-store';
import type { RemoteContext } from './context';
import { RefusedFailure } from './failures';
import { joinUrl, jsonOf, send, type HttpAnswer } from './http-client';
import { formatRefusal } from './problem-format';

export interface CallOptions {
  body?: string;
  contentType?: string;
  accept?: string;
  headers?: Record<string, string>;
  /** The file the body came from, so problems the server locates in it read `file:line:column: message`. */
  sentFile?: string;
}

/** A URN in a URL path: as the contract writes it, colons kept, anything else unsafe escaped. */
export const idPath = (id: string): string => encodeURIComponent(id).replace(/%3A/gi, ':');

/** The `Policy-Revision` header of an answer, when it has one. */
export function revisionOf(answer: HttpAnswer): number | undefined {
  const header = answer.headers.get('policy-revision');
  if (header === null || !/^\d+$/.test(header.trim())) return undefined;
  return Number(header.trim());
}

/**
 * The management and decision APIs with the logged-in session's token. Any answer of 400 or more becomes a
 * RefusedFailure that already reads well; every `Policy-Revision` pap answers is remembered in the session, so a
 * later `decide` can wait for the changes this user made.
 */
export class Api {
  constructor(
    private session: Session,
    private readonly context: RemoteContext,
  ) {}

  get lastRevision(): number | undefined {
    return this.session.lastRevision;
  }

  pap(method: string, path: string, options: CallOptions = {}): Promise<HttpAnswer> {
    return this.call('pap', this.session.papUrl, method, path, options);
  }

  pdp(method: string, path: string, options: CallOptions = {}): Promise<HttpAnswer> {
    return this.call('pdp', this.session.pdpUrl, method, path, options);
  }

  /** A JSON answer of pap's. */
  async papJson(method: string, path: string, options: CallOptions = {}): Promise<unknown> {
    const answer = await this.pap(method, path, options);
    const body = jsonOf(answer);
    if (body === undefined) throw new RefusedFailure([`pap answered ${method} ${path} with something that is not JSON`]);
    return body;
  }

  private async call(service: string, base: string, method: string, path: string, options: CallOptions): Promise<HttpAnswer> {
    const answer = await send({
      method,
      url: joinUrl(base, path),
      service,
      token: this.session.accessToken,
      body: options.body,
      contentType: options.contentType,
      accept: options.accept,
      headers: options.headers,
    });
    if (answer.status >= 400) throw new RefusedFailure(formatRefusal(service, answer, options.sentFile));
    const revision = revisionOf(answer);
    if (service === 'pap' && revision !== undefined && revision > (this.session.lastRevision ?? -1)) {
      this.session = { ...this.session, lastRevision: revision };
      await writeSession(this.context.env, this.session);
    }
    return answer;
  }
}
