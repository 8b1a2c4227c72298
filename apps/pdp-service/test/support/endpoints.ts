import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One call a test endpoint received. */
export interface ReceivedCall {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read whatever the pdp sent, field by field
  body: any;
  at: number;
  /** The idempotency key of a stored execute, when the call carried one. */
  idempotencyKey?: string;
}

/** What the endpoint does with the next call: answer a JSON value, a status, wait first, or drop the connection. */
export interface Behaviour {
  answer?: unknown;
  status?: number;
  delayMs?: number;
  /** Destroys the socket without answering. */
  hangUp?: boolean;
  /** Raw text instead of JSON. */
  raw?: string;
}

/**
 * A real HTTP PIP or PXP on 127.0.0.1 for tests: it records every `POST /execute` body and answers with
 * `behaviour(call)` (default: `defaultAnswer` as JSON).
 */
export class TestEndpoint {
  readonly calls: ReceivedCall[] = [];
  behaviour: (call: ReceivedCall, index: number) => Behaviour = () => ({ answer: this.defaultAnswer });
  private server: Server | undefined;
  private readonly open = new Set<ServerResponse>();
  private readonly delays = new Set<{ timer: NodeJS.Timeout; resolve: () => void }>();
  url = '';

  constructor(public defaultAnswer: unknown = true) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/component`;
    return this;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/component/execute') {
      res.statusCode = 404;
      res.end();
      return;
    }
    const key = req.headers['idempotency-key'];
    const call: ReceivedCall = { body: JSON.parse(Buffer.concat(chunks).toString('utf8')), at: Date.now(), ...(typeof key === 'string' ? { idempotencyKey: key } : {}) };
    const index = this.calls.push(call) - 1;
    const behaviour = this.behaviour(call, index);
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    if (behaviour.delayMs) {
      await new Promise<void>((resolve) => {
        const delay = { timer: setTimeout(() => finish(), behaviour.delayMs), resolve: () => finish() };
        const finish = () => {
          clearTimeout(delay.timer);
          this.delays.delete(delay);
          resolve();
        };
        this.delays.add(delay);
      });
    }
    if (res.destroyed) return;
    if (behaviour.hangUp) {
      res.destroy();
      return;
    }
    res.statusCode = behaviour.status ?? 200;
    res.setHeader('Content-Type', 'application/json');
    res.end(behaviour.raw ?? JSON.stringify(behaviour.answer ?? null));
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    for (const delay of [...this.delays]) delay.resolve();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
