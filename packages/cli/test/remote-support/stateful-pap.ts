import { problemReply, startServer, type RecordedRequest, type Reply, type TestServer } from './http-server';

export interface StoredDocument {
  xml: string;
  deployed: boolean;
}

export interface StatefulPap extends TestServer {
  documents: Map<string, StoredDocument>;
  revision(): number;
  /** Makes the next request whose method and path match fail with a 400 problem. */
  failOn(method: string, path: string): void;
}

const ID = /\sid="([^"]+)"/;

/**
 * Just enough of pap's policy and timer resources (api.md §4) over real HTTP for apply's tests: documents kept in
 * memory, a revision counter that moves when the deployed set changes, and a way to make one call fail.
 */
export async function startStatefulPap(initial: Record<string, StoredDocument> = {}): Promise<StatefulPap> {
  const documents = new Map(Object.entries(initial));
  let revision = 0;
  const failures: string[] = [];
  const changed = () => ({ 'Policy-Revision': String((revision += 1)) });
  const current = () => ({ 'Policy-Revision': String(revision) });

  const handle = (request: RecordedRequest): Reply => {
    const path = decodeURIComponent(request.url);
    const failure = failures.indexOf(`${request.method} ${path}`);
    if (failure >= 0) {
      failures.splice(failure, 1);
      return problemReply(400, 'invalid_policy', 'the policy is not valid: 1 problem', [{ message: 'refused for the test', line: 2, column: 3 }]);
    }
    const ids = /^\/ws\/(policy|timer)-ids(\/deployed)?$/.exec(path);
    if (ids && request.method === 'GET') {
      const kind = ids[1];
      const list = [...documents.entries()]
        .filter(([id, d]) => id.startsWith(`urn:${kind}:`) && (ids[2] === undefined || d.deployed))
        .map(([identifier]) => ({ identifier }))
        .sort((a, b) => (a.identifier < b.identifier ? -1 : 1));
      return { json: list };
    }
    if (/^\/ws\/(policy|timer)$/.test(path) && request.method === 'POST') {
      const id = ID.exec(request.body)?.[1] ?? '';
      if (documents.has(id)) return problemReply(409, 'conflict', `a policy \`${id}\` exists already`);
      documents.set(id, { xml: request.body, deployed: false });
      return { status: 201, json: true, headers: { Location: `/ws/policy/${id}` } };
    }
    const one = /^\/ws\/(?:policy|timer)\/([^/]+)(\/deploy|\/revoke)?$/.exec(path);
    const id = one?.[1] ?? '';
    const document = documents.get(id);
    if (one && one[2] === '/deploy') {
      if (!document) return { json: false, headers: current() };
      const wasDeployed = document.deployed;
      document.deployed = true;
      return { json: true, headers: wasDeployed ? current() : changed() };
    }
    if (one && one[2] === '/revoke') {
      if (!document?.deployed) return { json: false, headers: current() };
      document.deployed = false;
      return { json: true, headers: changed() };
    }
    if (one && request.method === 'GET') return document ? { text: document.xml } : problemReply(404, 'not_found', `no \`${id}\``);
    if (one && request.method === 'PUT') {
      if (!document) return problemReply(404, 'not_found', `no \`${id}\``);
      document.xml = request.body;
      return { json: true, headers: document.deployed ? changed() : {} };
    }
    if (one && request.method === 'DELETE') {
      if (!document) return { json: false, headers: current() };
      documents.delete(id);
      return { json: true, headers: document.deployed ? changed() : current() };
    }
    return problemReply(404, 'not_found', 'unknown route');
  };

  const server = await startServer(handle);
  return { ...server, documents, revision: () => revision, failOn: (method, path) => failures.push(`${method} ${path}`) };
}
