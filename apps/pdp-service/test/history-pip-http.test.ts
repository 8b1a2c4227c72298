import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { waitFor } from '@custos/test-kit';
import { component, policy, wireEvent } from './support/pdp';
import { usePdp } from './support/use-pdp';

/**
 * A recorded decision that waits for a PIP holds no lock while it waits: the other decisions of the same action are
 * recorded, decided and answered meanwhile, and the limit stays exact for all of them.
 */
const A = (name: string) => `urn:action:acme:${name}`;
const P = (name: string) => `urn:policy:acme:${name}`;
const ROLE = 'urn:info:acme:role';

/** A PIP answering `admin` at once, except for user `slow`, whose questions it keeps until `release()`. */
class HoldingPip {
  readonly held: ServerResponse[] = [];
  answered = 0;
  url = '';
  private readonly server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (Buffer.concat(chunks).toString('utf8').includes('"slow"')) this.held.push(res);
      else this.answer(res);
    });
  });

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/component`;
    return this;
  }

  release(): void {
    for (const res of this.held.splice(0)) this.answer(res);
  }

  async stop(): Promise<void> {
    this.release();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(res: ServerResponse): void {
    this.answered += 1;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ value: 'admin', type: 'java.lang.String', isComplex: false }));
  }
}

describe('a slow PIP in a recorded decision', () => {
  const pdp = usePdp({ pipTimeoutMs: 60_000 });
  let pip: HoldingPip;

  beforeAll(async () => {
    pip = await new HoldingPip().start();
    await pdp.register(component('PIP', 'hr', pip.url, [ROLE]));
    // "At most 2 a day per user, and only for admins": the count comes first, then the PIP.
    await pdp.deploy(
      P('guarded'),
      policy(
        P('guarded'),
        `<mechanism event="${A('fetch')}">
          <if><and>
              <less><count><eventOccurrence event="${A('fetch')}"><parameter:string name="user"><event:string eventParameter="user" default=""/></parameter:string></eventOccurrence><when fixedTime="today"/></count><constant:number value="3"/></less>
              <equals><pip:string method="${ROLE}" default="nobody"><parameter:string name="user"><event:string eventParameter="user" default=""/></parameter:string></pip:string><constant:string value="admin"/></equals>
            </and><then><allow/></then></if>
          <else><inhibit reason="limit or role"/></else>
        </mechanism>`,
      ),
    );
  });

  afterAll(async () => {
    await pip?.stop();
  });

  const decide = (user: string) =>
    request(pdp.server).post('/event').set('Authorization', `Bearer ${pdp.token}`).send(wireEvent('fetch', { user }));

  it('does not delay the other decisions of its action, which stay exact', async () => {
    let slowAnswered = false;
    const slow = decide('slow').then((response) => {
      slowAnswered = true;
      return response;
    });
    await waitFor(() => pip.held.length === 1, { timeoutMs: 10_000 });

    // While the slow decision waits for its PIP: three decisions each for two users, all concurrent.
    const others = await Promise.all(['a', 'a', 'a', 'b', 'b', 'b'].map((user) => decide(user)));
    expect(others.map((response) => response.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const allowedPerUser = (user: string) =>
      others.filter((response, index) => ['a', 'a', 'a', 'b', 'b', 'b'][index] === user && response.body.eventAllowed === true).length;
    expect([allowedPerUser('a'), allowedPerUser('b')]).toEqual([2, 2]);
    expect(slowAnswered).toBe(false);
    expect(pip.held).toHaveLength(1);

    pip.release();
    const answer = await slow;
    expect(answer.status).toBe(200);
    expect(answer.body.eventAllowed).toBe(true);
    // Every event is recorded; the slow one first, as it arrived first.
    const rows = await pdp.pool.query<{ keys: string[] }>('SELECT keys FROM pdp.history_events WHERE action = $1 ORDER BY id', [A('fetch')]);
    expect(rows.rows).toHaveLength(7);
    expect(rows.rows[0]?.keys).toContain(pdp.hasher.key('user', null, 'slow'));
  });
});
