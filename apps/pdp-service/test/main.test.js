"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
const pg_1 = require("pg");
const supertest_1 = __importDefault(require("supertest"));
const test_kit_1 = require("@custos/test-kit");
const main_1 = require("../src/main");
const fake_pap_1 = require("./support/fake-pap");
const policies_1 = require("./support/policies");
describe('start (main wiring)', () => {
    let authority;
    let pap;
    let pdp;
    const database = (0, test_kit_1.unusedDatabaseUrl)('custos_pdp_main');
    const prefix = (0, test_kit_1.uniqueNatsPrefix)();
    beforeAll(async () => {
        authority = await new test_kit_1.TestAuthority().start();
        pap = await fake_pap_1.FakePap.start(prefix);
        pap.deploy('urn:policy:acme:p', (0, policies_1.inhibitAll)('urn:policy:acme:p', 'urn:action:acme:show'), { announce: false });
    });
    afterAll(async () => {
        if (pdp) {
            await new Promise((resolve) => {
                pdp.server.closeAllConnections();
                pdp.server.close(() => resolve());
            });
            for (const close of pdp.closers)
                await close();
        }
        await pap.stop();
        await authority.stop();
        await (0, test_kit_1.dropDatabase)(database.name);
    });
    it('creates the database and the pdp schema, follows pap and answers decisions', async () => {
        const port = await (0, test_kit_1.freePort)();
        pdp = await (0, main_1.start)({
            DATABASE_URL: database.url,
            NATS_URL: test_kit_1.TEST_NATS_URL,
            NATS_PREFIX: prefix,
            AUTH_URL: authority.url,
            PDP_PORT: String(port),
            LOG_LEVEL: 'silent',
            DEFAULT_DECISION: 'allow',
            POLICY_TIMEZONE: 'Europe/Berlin',
        });
        expect(pdp.config.replicaId).toMatch(new RegExp(`:${port}$`));
        const client = new pg_1.Client({ connectionString: database.url });
        await client.connect();
        try {
            const schema = await client.query("SELECT 1 FROM information_schema.schemata WHERE schema_name = 'pdp'");
            expect(schema.rowCount).toBe(1);
            const migrations = await client.query('SELECT name FROM pdp.pgmigrations');
            expect(migrations.rows.map((r) => r.name)).toEqual(['1763798400000_pdp-schema', '1763900000000_pdp-history']);
        }
        finally {
            await client.end();
        }
        const url = `http://127.0.0.1:${port}`;
        await (0, test_kit_1.waitFor)(async () => (await fetch(`${url}/health/ready`)).status === 200, { what: 'readiness' });
        expect(pap.requests.at(-1)).toEqual({ requester: pdp.config.replicaId });
        const token = authority.mint({ scopes: ['event:decide'], solutions: ['acme'] });
        const response = await (0, supertest_1.default)(url)
            .post('/event')
            .set('Authorization', `Bearer ${token}`)
            .send({ actionId: { scope: 'acme', action: 'show' }, timestamp: Date.now(), parameters: [] });
        expect(response.status).toBe(200);
        expect(response.body.eventAllowed).toBe(false);
        expect(response.headers['policy-revision']).toBe('1');
        const status = await (0, supertest_1.default)(url).get('/status');
        expect(status.body).toMatchObject({ replica: pdp.config.replicaId, ready: true, revision: 1, policies: 1, natsConnected: true });
    });
});
//# sourceMappingURL=main.test.js.map