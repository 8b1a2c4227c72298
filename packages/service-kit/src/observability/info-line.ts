import pino, { type Logger } from 'pino';

/** What a logger made by createLogger writes to (pino's destination). */
interface LineDestination {
  write(line: string): unknown;
}

let lastMs = 0;
let lastIso = new Date(0).toISOString();
/** The ISO time of now; at tens of thousands of lines a second most share their millisecond. */
const isoNow = (): string => {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
};

/**
 * Writes one info line whose fields the caller has already serialised: `members` is the JSON text of an
 * object's members without the braces (`"a":1,"b":"x"`, or '' for none). The line has exactly the format
 * of a line of `logger` (a logger of createLogger or a child of one): level, time, the logger's bindings,
 * the members, then `msg`. For lines written once per request: pino's generic path (key by key
 * serialisation, redaction) costs several times a direct serialisation of a known record. Nothing is
 * written when the logger's level is above info.
 */
export function writeInfoLine(logger: Logger, msg: string, members: string): void {
  if (!logger.isLevelEnabled('info')) return;
  const internals = logger as unknown as Partial<Record<symbol, unknown>>;
  const destination = internals[pino.symbols.streamSym] as LineDestination | undefined;
  const bindings = internals[pino.symbols.chindingsSym];
  if (destination === undefined || typeof bindings !== 'string') {
    // Not shaped like a pino logger of this version: the generic path gives the same line.
    logger.info(JSON.parse(`{${members}}`) as object, msg);
    return;
  }
  destination.write(`{"level":"info","time":"${isoNow()}"${bindings}${members === '' ? '' : `,${members}`},"msg":${JSON.stringify(msg)}}\n`);
}
