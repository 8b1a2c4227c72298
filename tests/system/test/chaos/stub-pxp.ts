import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A PXP that answers true and remembers every delivery by its `seq` parameter and idempotency key. */
export class StubPxp {
  readonly bySeq = new Map<string, number>();
  readonly keys = new Set<string>();
  readonly tickKeys = new Set<string>();
  deliveries = 0;
  /** Deliveries without an idempotency key: executes a pdp could not store (PostgreSQL down), sent from memory. */
  unkeyed = 0;
  private server: Server | undefined;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        this.deliveries++;
        const key = req.headers['idempotency-key'];
        if (typeof key === 'string') this.keys.add(key);
        else this.unkeyed++;
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { parameters?: Array<{ name: string; value: { value: unknown } }> };
          const seq = body.parameters?.find((p) => p.name === 'seq')?.value.value;
          if (typeof seq === 'string') {
            this.bySeq.set(seq, (this.bySeq.get(seq) ?? 0) + 1);
            if (seq === 'tick' && typeof key === 'string') this.tickKeys.add(key);
          }
        } catch {
          // counted as a delivery all the same
        }
        res.setHeader('Content-Type', 'application/json');
        res.end('true');
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
