import pino from 'pino';
import { prettyFactory } from 'pino-pretty';
import { readChoice, type Env } from '../config';

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** Where pretty lines go: anything that takes text (stdout, a test's sink). */
export interface TextOutput {
  write(text: string): unknown;
}

/**
 * JSON lines are what log collectors read, so they stay the default; a person at a terminal gets
 * the pretty form unless `LOG_FORMAT=json` says otherwise.
 */
export function readLogFormat(env: Env, isTerminal: boolean): LogFormat {
  return readChoice(env, 'LOG_FORMAT', LOG_FORMATS, isTerminal ? 'pretty' : 'json');
}

/** The NO_COLOR / FORCE_COLOR conventions; otherwise colors only on a terminal. */
export function wantsColor(env: Env, isTerminal: boolean): boolean {
  if ((env.NO_COLOR ?? '') !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  return isTerminal;
}

/** The access line every request writes, as `GET /path 200 1.2 ms` instead of five fields. */
function compactRequest(record: Record<string, unknown>): Record<string, unknown> {
  const { msg, method, path, status, ms } = record;
  if (msg !== 'request' || typeof method !== 'string' || typeof path !== 'string') return record;
  const rest = { ...record };
  for (const key of ['method', 'path', 'status', 'ms', 'requestId']) delete rest[key];
  return { ...rest, msg: `${method} ${path} ${String(status)} ${String(ms)} ms` };
}

/**
 * A pino destination that prints each (already redacted) JSON line as one compact, optionally
 * colored line. It formats in the calling thread and writes synchronously: no worker thread, and
 * a fatal line written just before exit is not lost.
 */
export function prettyLines(output: TextOutput, colorize: boolean): pino.DestinationStream {
  const format = prettyFactory({
    colorize,
    singleLine: true,
    translateTime: 'SYS:HH:MM:ss.l',
    // The service name is in the prefix of `npm start` and obvious when one service runs alone.
    ignore: 'service,pid,hostname',
  });
  return {
    write(line: string) {
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        output.write(line);
        return;
      }
      const compact = typeof record === 'object' && record !== null ? compactRequest(record as Record<string, unknown>) : record;
      output.write(format(compact));
    },
  };
}

/** What a service writes to stdout when it is given no destination: pretty lines for LOG_FORMAT=pretty (or a terminal). */
export function prettyStdoutRequested(env: Env = process.env): boolean {
  return readLogFormat(env, process.stdout.isTTY === true) === 'pretty';
}

export function prettyStdout(env: Env = process.env): pino.DestinationStream {
  return prettyLines(pino.destination({ dest: 1, sync: true }), wantsColor(env, process.stdout.isTTY === true));
}
