import { Client } from 'pg';
import request from 'supertest';
import { TestAuthority, dropDatabase, freePort, uniqueNatsPrefix, unusedDatabaseUrl, waitFor, TEST_NATS_URL } from '@custos/test-kit';
import { start, type RunningPdp } from '../src/main';
import { FakePap } from './support/fake-pap';
import { inhibitAll } from './support/policies';

describe('start (main wiring)', () => {
  let authority: TestAuthority;
  let pap: FakePap;
  let pdp: RunningPdp | undefined;
  const database = unusedDatabaseUrl('custos_pdp_main');
  const prefix = uniqueNatsPrefix();

  beforeAll(async () => {
    authority = await new TestAuthority().start();
    pap = await FakePap.start(prefix);
    pap.deploy('urn:policy:acme:p', inhibitAll('urn:policy:acme:p', 'urn:action:acme:show'), { announce: false });
  });

  afterAll(async () => {
    if (pdp) {
      await new Promise<void>((resolve) => {
        pdp!.server.closeAllConnections();
        pdp!.server.close(() => resolve());
      });
      for (const close of pdp.closers) await close();
    }
    await pap.stop();
    await authority.stop();
    await dropDatabase(database.name);
  });

  it('creates the database and the pdp schema, follows pap and answers decisions', async () => {
    const port = await freePort();
    pdp = await start({
      DATABASE_URL: database.url,
      NATS_URL: TEST_NATS_URL,
      NATS_PREFIX: prefix,
      AUTH_URL: authority.url,
      PDP_PORT: String(port),
      LOG_LEVEL: 'silent',
      DEFAULT_DECISION: 'allow',
      POLICY_TIMEZONE: 'Europe/Berlin',
    });
    expect(pdp.config.replicaId).toMatch(new RegExp(`:${port}$`));

    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const schema = await client.query("SELECT 1 FROM information_schema.schemata WHERE schema_name = 'pdp'");
      expect(schema.rowCount).toBe(1);
      const migrations = await client.query('SELECT name FROM pdp.pgmigrations');
      expect(migrations.rows.map((r: { name: string }) => r.name)).toEqual(['1763798400000_pdp-schema', '1763900000000_pdp-history', '1764000000000_pdp-history-batch', '1764100000000_pdp-executions', '1764200000000_pdp-value-changed-deployment', '1764260000000_pdp-history-keys-no-pending-list', '1764400000000_pdp-history-record-batch']);
    } finally {
      await client.end();
    }

    const url = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${url}/health/ready`)).status === 200, { what: 'readiness' });
    expect(pap.requests.at(-1)).toEqual({ requester: pdp.config.replicaId });
    const token = authority.mint({ scopes: ['event:decide'], solutions: ['acme'] });
    const response = await request(url)
      .post('/event')
      .set('Authorization', `Bearer ${token}`)
      .send({ actionId: { scope: 'acme', action: 'show' }, timestamp: Date.now(), parameters: [] });
    expect(response.status).toBe(200);
    expect(response.body.eventAllowed).toBe(false);
    expect(response.headers['policy-revision']).toBe('1');
    const status = await request(url).get('/status');
    expect(status.body).toMatchObject({ replica: pdp.config.replicaId, ready: true, revision: 1, policies: 1, natsConnected: true });
  });
});
