"use strict";
Object.defineProperty(exports, "__esModule", { value: true });
exports.memoryLogger = memoryLogger;
const node_stream_1 = require("node:stream");
const service_kit_1 = require("@custos/service-kit");
/** A real pino logger whose lines are kept in memory as parsed JSON. */
function memoryLogger(level = 'debug') {
    const lines = [];
    const sink = new node_stream_1.Writable({
        write(chunk, _encoding, done) {
            for (const line of chunk.toString('utf8').split('\n'))
                if (line.trim() !== '')
                    lines.push(JSON.parse(line));
            done();
        },
    });
    return { logger: (0, service_kit_1.createLogger)('pdp-service', level, sink), lines };
}
//# sourceMappingURL=logger.js.map