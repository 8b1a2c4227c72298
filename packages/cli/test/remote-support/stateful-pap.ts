import { problemReply, startServer, type RecordedRequest, type Reply, type TestServer } from './http-server';

export interface StoredDocument {
  xml: string;
  deployed: boolean;
}

export interface StatefulPap extends TestServer {
  documents: Map<string, StoredDocument>;
  revision(): number;
  /** Makes the next request whose method and path match fail with a 400 problem whose one error has `path`. */
  failOn(method: string, path: string, errorPath?: string): void;
}

const ID = /\sid="([^"]+)"/;

/**
 * Just enough of pap's policy and timer resources (api.md §4) and of its change sets over real HTTP for apply's
 * tests: documents kept in memory, a revision counter that moves when the deployed set changes (once per change set),
 * and a way to make one call fail.
 */
export async function startStatefulPap(initial: Record<string, StoredDocument> = {}): Promise<StatefulPap> {
  const documents = new Map(Object.entries(initial));
  let revision = 0;
  const failures: Array<{ call: string; errorPath: string | undefined }> = [];
  const changed = () => ({ 'Policy-Revision': String((revision += 1)) });
  const current = () => ({ 'Policy-Revision': String(revision) });

  const handle = (request: RecordedRequest): Reply => {
    const path = decodeURIComponent(request.url);
    const failure = failures.findIndex((f) => f.call === `${request.method} ${path}`);
    if (failure >= 0) {
      const [{ errorPath } = { errorPath: undefined }] = failures.splice(failure, 1);
      const error = { message: 'refused for the test', line: 2, column: 3, ...(errorPath === undefined ? {} : { path: errorPath }) };
      return problemReply(400, 'invalid_policy', 'the policy is not valid: 1 problem', [error]);
    }
    if (path === '/ws/changes' && request.method === 'POST') return applyChangeSet(request.body);
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

  /** `POST /ws/changes`: every item in order on a copy, which replaces the documents only when all of it went through. */
  const applyChangeSet = (body: string): Reply => {
    const { changes } = JSON.parse(body) as { changes: Array<{ op: string; id: string; xml?: string }> };
    const next = new Map([...documents].map(([id, document]) => [id, { ...document }]));
    let deployedSetChanged = false;
    for (const [index, change] of changes.entries()) {
      const id = change.xml === undefined ? change.id : (ID.exec(change.xml)?.[1] ?? '');
      const document = next.get(id);
      const refuse = (status: number, code: string) => problemReply(status, code, `item ${index} refused`, [{ message: `\`${id}\``, path: `changes[${index}]` }]);
      if (change.op === 'add') {
        if (document) return refuse(409, 'conflict');
        next.set(id, { xml: change.xml ?? '', deployed: false });
        continue;
      }
      if (!document) return refuse(404, 'not_found');
      if (change.op === 'replace') document.xml = change.xml ?? '';
      if (change.op === 'remove') next.delete(id);
      const deployed = change.op === 'deploy' ? true : change.op === 'revoke' || change.op === 'remove' ? false : document.deployed;
      deployedSetChanged ||= deployed !== document.deployed || (change.op === 'replace' && document.deployed);
      document.deployed = deployed;
    }
    documents.clear();
    for (const [id, document] of next) documents.set(id, document);
    return { json: { revision: deployedSetChanged ? (revision += 1) : revision, changed: deployedSetChanged }, headers: current() };
  };

  const server = await startServer(handle);
  return { ...server, documents, revision: () => revision, failOn: (method, path, errorPath) => failures.push({ call: `${method} ${path}`, errorPath }) };
}
