import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { drainServer } from '@custos/service-kit';

/** Sends a raw HTTP/1.1 request on an open socket and resolves with the whole answer once the server closes it. */
function rawRequest(socket: Socket, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: test\r\n\r\n`);
  });
}

function opened(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

describe('drainServer', () => {
  let server: Server;
  let port: number;
  let accepted: number;
  let releaseSlow: () => void;

  beforeEach(async () => {
    accepted = 0;
    const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));
    server = createServer((req, res) => {
      if (req.url === '/slow') void slowGate.then(() => res.end('slow'));
      else res.end('fast');
    });
    server.on('connection', () => (accepted += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterEach(() => {
    releaseSlow();
    server.closeAllConnections();
  });

  it('refuses new connections, answers the request in flight and one that arrives on a connection accepted before', async () => {
    const slow = new Promise<{ status: number | undefined; body: string; connection: string | undefined }>((resolve, reject) => {
      request({ port, host: '127.0.0.1', path: '/slow', agent: false }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
        res.on('end', () => resolve({ status: res.statusCode, body, connection: res.headers.connection }));
      })
        .on('error', reject)
        .end();
    });
    const early = await opened(port);
    await new Promise<void>((resolve) => {
      const check = () => (accepted >= 2 ? resolve() : setImmediate(check));
      check();
    });

    const drained = drainServer(server, { idleGraceMs: 2_000, graceMs: 10_000 });
    await expect(opened(port)).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    // The connection made before the drain delivers its request only now: still answered, and then closed.
    const late = await rawRequest(early, '/fast');
    expect(late).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(late.toLowerCase()).toContain('connection: close');
    expect(late.endsWith('fast')).toBe(true);

    releaseSlow();
    await expect(slow).resolves.toEqual({ status: 200, body: 'slow', connection: 'close' });
    await drained;
    expect(server.listening).toBe(false);
  });

  it('closes a connection that never sends a request once the idle grace is over', async () => {
    const silent = await opened(port);
    const closedAt = new Promise<number>((resolve) => silent.on('close', () => resolve(Date.now())));
    const started = Date.now();
    await drainServer(server, { idleGraceMs: 300, graceMs: 10_000 });
    expect((await closedAt) - started).toBeGreaterThanOrEqual(250);
  });
});
