"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.TestEndpoint = void 0;
const node_http_1 = require("node:http");
/**
 * A real HTTP PIP or PXP on 127.0.0.1 for tests: it records every `POST /execute` body and answers with
 * `behaviour(call)` (default: `defaultAnswer` as JSON).
 */
class TestEndpoint {
    defaultAnswer;
    calls = [];
    behaviour = () => ({ answer: this.defaultAnswer });
    server;
    open = new Set();
    delays = new Set();
    url = '';
    constructor(defaultAnswer = true) {
        this.defaultAnswer = defaultAnswer;
    }
    async start() {
        this.server = (0, node_http_1.createServer)((req, res) => void this.handle(req, res));
        await new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
        this.url = `http://127.0.0.1:${this.server.address().port}/component`;
        return this;
    }
    async handle(req, res) {
        const chunks = [];
        for await (const chunk of req)
            chunks.push(chunk);
        if (req.method !== 'POST' || req.url !== '/component/execute') {
            res.statusCode = 404;
            res.end();
            return;
        }
        const call = { body: JSON.parse(Buffer.concat(chunks).toString('utf8')), at: Date.now() };
        const index = this.calls.push(call) - 1;
        const behaviour = this.behaviour(call, index);
        this.open.add(res);
        res.on('close', () => this.open.delete(res));
        if (behaviour.delayMs) {
            await new Promise((resolve) => {
                const delay = { timer: setTimeout(() => finish(), behaviour.delayMs), resolve: () => finish() };
                const finish = () => {
                    clearTimeout(delay.timer);
                    this.delays.delete(delay);
                    resolve();
                };
                this.delays.add(delay);
            });
        }
        if (res.destroyed)
            return;
        if (behaviour.hangUp) {
            res.destroy();
            return;
        }
        res.statusCode = behaviour.status ?? 200;
        res.setHeader('Content-Type', 'application/json');
        res.end(behaviour.raw ?? JSON.stringify(behaviour.answer ?? null));
    }
    async stop() {
        for (const res of this.open)
            res.destroy();
        for (const delay of [...this.delays])
            delay.resolve();
        this.server?.closeAllConnections();
        await new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    }
}
exports.TestEndpoint = TestEndpoint;
//# sourceMappingURL=endpoints.js.map