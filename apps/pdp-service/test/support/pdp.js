"use strict";
var __importDefault = (this && this.__importDefault) || function (mod) {
    return (mod && mod.__esModule) ? mod : { "default": mod };
};
Object.defineProperty(exports, "__esModule", { value: true });
exports.wireEvent = exports.timerXml = exports.policy = exports.TestClock = exports.MIGRATIONS = void 0;
exports.startPdp = startPdp;
exports.component = component;
const node_http_1 = require("node:http");
const node_path_1 = __importDefault(require("node:path"));
const nats_1 = require("nats");
const service_kit_1 = require("@custos/service-kit");
const test_kit_1 = require("@custos/test-kit");
const app_1 = require("../../src/app");
const http_json_1 = require("../../src/calls/http-json");
const decider_1 = require("../../src/decision/decider");
const hashing_1 = require("../../src/history/hashing");
const retention_1 = require("../../src/history/retention");
const secret_1 = require("../../src/history/secret");
const store_1 = require("../../src/history/store");
const metrics_1 = require("../../src/metrics");
const resolver_1 = require("../../src/pip/resolver");
const follower_1 = require("../../src/policy-set/follower");
const transport_1 = require("../../src/policy-set/transport");
const gateway_1 = require("../../src/pxp/gateway");
const scheduler_1 = require("../../src/timers/scheduler");
const fake_pap_1 = require("./fake-pap");
const logger_1 = require("./logger");
exports.MIGRATIONS = node_path_1.default.join(__dirname, '..', '..', 'migrations');
/** A clock the test moves by hand. */
class TestClock {
    current;
    constructor(current) {
        this.current = current;
    }
    now() {
        return this.current;
    }
    set(iso) {
        this.current = Date.parse(iso);
    }
    advance(ms) {
        this.current += ms;
    }
}
exports.TestClock = TestClock;
async function startPdp(options) {
    const log = (0, logger_1.memoryLogger)('info');
    const database = options.database ?? (await (0, test_kit_1.createTestDatabase)('custos_pdp'));
    await (0, service_kit_1.migrate)({ databaseUrl: database.url, schema: 'pdp', dir: exports.MIGRATIONS, logger: log.logger });
    const historyTimeoutMs = options.historyTimeoutMs ?? 2000;
    const pool = (0, service_kit_1.createPool)(options.historyUrl ?? database.url, log.logger, {
        max: options.poolSize ?? 10,
        connectionTimeoutMillis: historyTimeoutMs,
        statement_timeout: historyTimeoutMs,
        query_timeout: historyTimeoutMs + 500,
    });
    const hasher = new hashing_1.HistoryHasher(await (0, secret_1.historySecret)(pool, options.historyUrl === undefined ? undefined : 'outage-test-secret-0123456789'));
    const metrics = (0, metrics_1.createPdpMetrics)(false);
    const store = new store_1.PgHistoryStore({ pool, hasher, logger: log.logger, metrics: { failures: (op) => metrics.historyFailures.inc({ op }) } });
    const targets = new http_json_1.CallTargets({
        timeoutMs: options.pipTimeoutMs ?? 500,
        maxConcurrency: options.pipMaxConcurrency ?? 32,
        breakerFailures: options.breakerFailures ?? 5,
        breakerOpenMs: options.breakerOpenMs ?? 5000,
    });
    const pip = new resolver_1.HttpPipResolver({ targets, logger: log.logger, cacheEntries: 1000, onOutcome: (outcome) => metrics.pipCalls.inc({ outcome }) });
    const pxp = new gateway_1.PxpGateway({
        targets,
        logger: log.logger,
        timeoutMs: options.pxpTimeoutMs ?? 500,
        syncTimeoutMs: options.pipTimeoutMs ?? 500,
        attempts: options.pxpAttempts ?? 4,
        backoffMs: options.pxpBackoffMs ?? 20,
        onOutcome: (kind, outcome) => metrics.pxpExecutions.inc({ kind, outcome }),
    });
    const timeZone = options.timeZone ?? 'UTC';
    const defaultDecision = options.defaultDecision ?? 'allow';
    const decider = new decider_1.Decider({ defaultDecision, timeZone, logger: log.logger, history: store, pip, pxp, clock: options.clock });
    const pap = options.pap ?? (await fake_pap_1.FakePap.start((0, test_kit_1.uniqueNatsPrefix)()));
    const nc = await (0, nats_1.connect)({ servers: test_kit_1.TEST_NATS_URL, name: 'pdp under test' });
    const transport = new transport_1.NatsPolicyTransport(nc, { prefix: pap.prefix, requester: options.replicaId ?? 'pdp-test', logger: log.logger, chunkTimeoutMs: 2000 });
    let scheduler;
    const follower = new follower_1.PolicySetFollower({
        transport,
        logger: log.logger,
        metrics,
        resyncIntervalMs: 0,
        backoff: { initialMs: 20, maxMs: 100 },
        onActivate: (active) => scheduler?.update(active),
    });
    if (options.timers === true) {
        scheduler = new scheduler_1.TimerScheduler({
            pool,
            decider,
            logger: log.logger,
            timeZone,
            replicaId: options.replicaId ?? 'pdp-test',
            active: () => follower.active,
            onTick: (outcome) => metrics.timerTicks.inc({ outcome }),
        });
    }
    const retention = new retention_1.RetentionJob({
        pool,
        logger: log.logger,
        intervalMs: 3_600_000,
        state: () => (follower.active ? { revision: follower.active.revision, history: follower.active.history } : undefined),
        now: options.clock ? () => options.clock.now() : undefined,
    });
    const app = (0, app_1.createApp)({
        logger: log.logger,
        metrics,
        verifier: new service_kit_1.TokenVerifier({ jwksUrl: options.authority.jwksUrl }),
        policies: follower,
        natsConnected: () => transport.connected,
        replicaId: options.replicaId ?? 'pdp-test',
        defaultDecision,
        timeZone,
        decider,
        minRevisionWaitMs: 2000,
    });
    const server = (0, node_http_1.createServer)(app);
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    await follower.start();
    await (0, test_kit_1.waitFor)(() => follower.ready, { what: 'the first snapshot' });
    const applied = async (revision) => {
        await (0, test_kit_1.waitFor)(() => (follower.active?.revision ?? -1) >= revision, { what: `revision ${revision}` });
        return revision;
    };
    return {
        database,
        pap,
        pool,
        server,
        follower,
        decider,
        store,
        pip,
        pxp,
        targets,
        scheduler,
        retention,
        metrics,
        log,
        hasher,
        deploy: (id, xml) => applied(pap.deploy(id, xml)),
        revoke: (id) => applied(pap.revoke(id)),
        register: (component) => applied(pap.register(component)),
        stop: async ({ keepShared = false } = {}) => {
            await follower.stop();
            await scheduler?.stop();
            await retention.stop();
            await pxp.drain(1000);
            await nc.drain();
            server.closeAllConnections();
            await new Promise((resolve) => server.close(() => resolve()));
            await pool.end();
            targets.close();
            if (!keepShared) {
                if (options.pap === undefined)
                    await pap.stop();
                if (options.database === undefined)
                    await database.drop();
            }
        },
    };
}
/** XML of a policy declaring every namespace the tests use. */
const NS = [
    'xmlns="http://www.mydata-control.de/4.0/mydataLanguage"',
    'xmlns:constant="http://www.mydata-control.de/4.0/constant"',
    'xmlns:event="http://www.mydata-control.de/4.0/event"',
    'xmlns:parameter="http://www.mydata-control.de/4.0/parameter"',
    'xmlns:pip="http://www.mydata-control.de/4.0/pip"',
    'xmlns:valueChanged="http://www.mydata-control.de/4.0/valueChanged"',
].join(' ');
const policy = (id, body) => `<policy ${NS} id="${id}">\n${body}\n</policy>`;
exports.policy = policy;
const timerXml = (id, cron, events) => `<timer xmlns="http://www.mydata-control.de/4.0/mydataLanguageTimer" xmlns:parameter="http://www.mydata-control.de/4.0/parameter" ` +
    `xmlns:constant="http://www.mydata-control.de/4.0/constant" id="${id}" cron="${cron}">\n${events}\n</timer>`;
exports.timerXml = timerXml;
/** A component as pap propagates it. */
function component(type, name, url, methods) {
    return {
        id: { componentType: type, identifier: `urn:component:acme:${type.toLowerCase()}:${name}` },
        urls: ['rmi://ignored.example:1099/x', url],
        componentInterfaces: methods.map((methodName) => ({ type: 'InterfaceDescription', methodName, returnType: 'java.lang.Object', parameters: [] })),
    };
}
/** A wire event of solution acme. */
const wireEvent = (action, parameters = {}, timestamp = Date.UTC(2026, 0, 15, 12)) => ({
    actionId: { scope: 'acme', action },
    timestamp,
    parameters: Object.entries(parameters).map(([name, value]) => ({
        name,
        value: { value, type: typeof value === 'object' ? 'java.lang.Object' : 'java.lang.String', isComplex: typeof value === 'object' && value !== null },
    })),
});
exports.wireEvent = wireEvent;
//# sourceMappingURL=pdp.js.map