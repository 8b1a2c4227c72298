import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as a test server saw it. */
export interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (seen: Seen, res: ServerResponse, req: IncomingMessage) => unknown;

/** A real HTTP server on 127.0.0.1 that keeps every request it received. */
export class TestServer {
  readonly seen: Seen[] = [];
  url = '';
  private readonly server: Server;

  constructor(private handler: Handler) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const seen: Seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        this.seen.push(seen);
        void this.handler(seen, res, req);
      });
    });
  }

  static async start(handler: Handler, port = 0): Promise<TestServer> {
    const server = new TestServer(handler);
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.server.listen(port, '127.0.0.1', () => resolve());
    });
    server.url = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
    return server;
  }

  /**
   * Listens on `port` of every interface. Without a host name to look up, node binds before this returns, so a
   * connection attempted right after it is accepted: the test needs no waiting.
   */
  listenNow(port: number): void {
    this.server.listen(port);
    this.url = `http://127.0.0.1:${port}`;
  }

  handle(handler: Handler): void {
    this.handler = handler;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
  res.end(text);
}

/** A token endpoint issuing `token-1`, `token-2`, ... with the given lifetime in seconds. */
export async function tokenServer(expiresIn = 3600): Promise<TestServer & { issued: string[] }> {
  const issued: string[] = [];
  const server = await TestServer.start((seen, res) => {
    const form = new URLSearchParams(seen.body);
    if (form.get('client_id') !== 'pep' || form.get('client_secret') !== 'pep-secret') {
      json(res, 401, { error: 'invalid_client', error_description: 'unknown client or wrong secret' });
      return;
    }
    const token = `token-${issued.length + 1}`;
    issued.push(token);
    json(res, 200, { access_token: token, token_type: 'Bearer', expires_in: expiresIn, scope: form.get('scope') ?? '' });
  });
  return Object.assign(server, { issued });
}

/** An allowing decision with the given modifiers and delay. */
export function decision(modifiers: unknown[] = [], { allowed = true, delay = 0 } = {}) {
  return { id: { identifier: 'urn:decision:0193a5e2-7c4b-7d6e-9f10-2b3c4d5e6f70' }, eventAllowed: allowed, modifiers, delay };
}

/** A modifier as the pdp sends it; parameter values typed as the pdp types them. */
export function modifier(name: string, expression: string, method: string, parameters: Record<string, unknown> = {}) {
  return {
    name,
    expression,
    engine: [{ method, parameters: Object.entries(parameters).map(([key, value]) => ({ name: key, value: typedValue(value) })) }],
  };
}

function typedValue(value: unknown) {
  if (typeof value === 'string') return { value, type: 'java.lang.String', isComplex: false };
  if (typeof value === 'number') return { value, type: 'java.lang.Double', isComplex: false };
  if (typeof value === 'boolean') return { value, type: 'java.lang.Boolean', isComplex: false };
  if (Array.isArray(value)) return { value, type: 'java.util.ArrayList', isComplex: true };
  if (value === null) return { value: null, type: 'java.lang.Object', isComplex: false };
  return { value, type: 'java.lang.Object', isComplex: true };
}
