import pino, { type Logger } from 'pino';
import { createLineSink } from './line-sink';
import { prettyStdout, prettyStdoutRequested } from './log-format';

export type { Logger };

/** Paths pino blanks wherever they appear, so secrets cannot reach a log line by accident. */
const REDACTED = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  'authorization',
  'password',
  'secret',
  'client_secret',
  'clientSecret',
  'access_token',
  'token',
  '*.client_secret',
  '*.clientSecret',
  '*.secret',
  '*.token',
  '*.access_token',
  '*.authorization',
];

/**
 * A JSON-lines logger. Without a destination it writes to stdout through a line sink whose writes run on a
 * worker thread (line-sink.ts): the service's own thread only copies each line into a bounded ring.
 */
export function createLogger(service: string, level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service },
      redact: { paths: REDACTED, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? (prettyStdoutRequested() ? prettyStdout() : createLineSink(1, { service })),
  );
}
