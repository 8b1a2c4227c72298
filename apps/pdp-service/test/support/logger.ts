import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@custos/service-kit';

/** A real pino logger whose lines are kept in memory as parsed JSON. */
export function memoryLogger(level = 'debug'): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger('pdp-service', level, sink), lines };
}
