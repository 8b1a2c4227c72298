import { connect } from 'nats';
import { Client } from 'pg';
import jwt from 'jsonwebtoken';
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect as connectTcp, createServer, type Server } from 'node:net';
import { createTestDatabase, freePort, startOwnNatsServer, TestAuthority, waitFor } from '@custos/test-kit';

describe('waitFor', () => {
  it('returns the first truthy value', async () => {
    let calls = 0;
    await expect(waitFor(() => (++calls >= 3 ? 'done' : undefined), { intervalMs: 1 })).resolves.toBe('done');
    expect(calls).toBe(3);
  });

  it('fails after its deadline and says what it waited for, with the last error', async () => {
    await expect(
      waitFor(
        () => {
          throw new Error('still broken');
        },
        { timeoutMs: 30, intervalMs: 5, what: 'the thing' },
      ),
    ).rejects.toThrow('timed out after 30 ms waiting for the thing (last error: still broken)');
  });
});

describe('createTestDatabase', () => {
  it('makes a usable database and drops it', async () => {
    const database = await createTestDatabase('custos_kit');
    const client = new Client({ connectionString: database.url });
    await client.connect();
    const { rows } = await client.query('SELECT current_database() AS name');
    await client.end();
    expect(rows[0].name).toBe(database.name);
    await database.drop();
    const admin = new Client({ connectionString: database.url.replace(database.name, 'postgres') });
    await admin.connect();
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database.name]);
    await admin.end();
    expect(found.rowCount).toBe(0);
  });
});

describe('TestAuthority', () => {
  const authority = new TestAuthority();
  beforeAll(() => authority.start());
  afterAll(() => authority.stop());

  it('serves its public key and mints tokens it verifies', async () => {
    const response = await fetch(authority.jwksUrl);
    const { keys } = (await response.json()) as { keys: Array<{ kid: string }> };
    expect(keys.map((k) => k.kid)).toEqual([authority.kid]);
    const key = createPublicKey({ key: keys[0] as never, format: 'jwk' });
    const claims = jwt.verify(authority.mint({ sub: 'c', scopes: ['policy:read'], solutions: ['acme'] }), key) as jwt.JwtPayload;
    expect(claims).toMatchObject({ sub: 'c', scope: 'policy:read', solutions: ['acme'], iss: 'custos-auth', aud: 'custos' });
  });
});

describe('startOwnNatsServer', () => {
  it('can be stopped and started again on the same port', async () => {
    const nats = await startOwnNatsServer();
    try {
      const first = await connect({ servers: nats.url });
      await first.close();
      await nats.stop();
      await expect(connect({ servers: nats.url, reconnect: false, timeout: 300 })).rejects.toThrow();
      await nats.start();
      const second = await connect({ servers: nats.url });
      expect((await (await second.jetstreamManager()).getAccountInfo()).streams).toBe(0);
      await second.close();
    } finally {
      await nats.destroy();
    }
  }, 30_000);

  it('reserves a port without starting when asked', async () => {
    const nats = await startOwnNatsServer({ started: false });
    await expect(connect({ servers: nats.url, reconnect: false, timeout: 300 })).rejects.toThrow();
    await nats.destroy();
    expect(await freePort()).toBeGreaterThan(0);
  });
});

describe('freePort', () => {
  const listenOn = (port: number) =>
    new Promise<Server>((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(port, '0.0.0.0', () => resolve(server));
    });
  const close = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));
  const ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);

  // Why it matters (issue 23's chaos run): a port the kernel chose for an outgoing connection cannot be listened on
  // while that connection, or its TIME_WAIT, lasts; a service restarted on such a port fails to start.
  it('the hazard: a port held by an outgoing connection refuses a listener', async () => {
    const target = await listenOn(0);
    const outgoing = connectTcp({ host: '127.0.0.1', port: (target.address() as { port: number }).port });
    await new Promise((resolve) => outgoing.once('connect', resolve));
    try {
      await expect(listenOn(outgoing.localPort ?? 0)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      outgoing.destroy();
      await close(target);
    }
  });

  it('gives distinct ports below the kernel\'s ephemeral range, so no outgoing connection can hold one', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 20; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(20);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000);
      expect(port).toBeLessThan(ephemeralLow);
    }
    // And each can be listened on, on every address (as the services do).
    for (const port of ports.slice(0, 3)) await close(await listenOn(port));
  });
});
