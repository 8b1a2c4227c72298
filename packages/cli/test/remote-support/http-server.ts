import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  /** JSON unless `text` is given. */
  json?: unknown;
  text?: string;
}

export interface TestServer {
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** A real HTTP server on a free local port that records every request and answers with `handle`'s reply. */
export async function startServer(handle: (request: RecordedRequest) => Reply | Promise<Reply>): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      requests.push(request);
      void Promise.resolve(handle(request)).then((reply) => {
        const body = reply.text ?? (reply.json === undefined ? '' : JSON.stringify(reply.json));
        const type = reply.text === undefined ? 'application/json' : 'text/plain';
        res.writeHead(reply.status ?? 200, { 'Content-Type': type, ...reply.headers });
        res.end(body);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A problem+json reply as the services send them. */
export function problemReply(status: number, code: string, detail: string, errors?: unknown[]): Reply {
  return {
    status,
    headers: { 'Content-Type': 'application/problem+json' },
    json: { type: `urn:custos:problem:${code}`, title: 'Bad Request', status, detail, code, ...(errors ? { errors } : {}) },
  };
}

/** A port nothing listens on: a server is started, its port noted, and the server closed. */
export async function closedPort(): Promise<number> {
  const server = await startServer(() => ({}));
  const port = Number(new URL(server.url).port);
  await server.close();
  return port;
}
