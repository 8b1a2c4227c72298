import pino, { type Logger } from 'pino';
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

export function createLogger(service: string, level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service },
      redact: { paths: REDACTED, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination ?? (prettyStdoutRequested() ? prettyStdout() : batchedStdout()),
  );
}

/**
 * stdout written in batches of about 4 KiB: under load one write call carries a dozen decision lines
 * instead of one each. A timer flushes what is left at least once a second, so a quiet service's
 * lines are not held back; shutdown flushes the rest.
 */
function batchedStdout(): pino.DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => stream.flush(), 1000).unref();
  return stream;
}
