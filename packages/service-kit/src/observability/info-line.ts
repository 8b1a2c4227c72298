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

/** Writes one info line whose members are already JSON text; see writeInfoLine. */
export type InfoLineWriter = (msg: string, members: string) => void;

/**
 * Writes one info line whose fields the caller has already serialised: `members` is the JSON text of an
 * object's members without the braces (`"a":1,"b":"x"`, or '' for none). The line has exactly the format
 * of a line of `logger` (a logger of createLogger or a child of one): level, time, the logger's bindings,
 * the members, then `msg`. For lines written once per request: pino's generic path (key by key
 * serialisation, redaction) costs several times a direct serialisation of a known record. Nothing is
 * written when the logger's level is above info.
 */
export function writeInfoLine(logger: Logger, msg: string, members: string): void {
  infoLineWriter(logger)(msg, members);
}

/**
 * writeInfoLine for one logger, with what does not change between its lines (its destination, its bindings)
 * looked up once: for a logger that writes a line per request. The level is still checked at every line.
 */
export function infoLineWriter(logger: Logger): InfoLineWriter {
  const lines = infoLines(logger);
  if (lines === undefined) {
    // Not shaped like a pino logger of this version: the generic path gives the same line.
    return (msg, members) => {
      if (logger.isLevelEnabled('info')) logger.info(JSON.parse(`{${members}}`) as object, msg);
    };
  }
  return (msg, members) => {
    if (lines.enabled()) lines.write(lines.line(msg, members));
  };
}

/** Info lines of one logger made as text, to be written together: many lines cost one write. */
export interface InfoLines {
  /** Whether the logger's level lets info lines through now. */
  enabled(): boolean;
  /**
   * The text of one line (with its newline) in the logger's format, as writeInfoLine would write it; `time` (from
   * `now`) for lines made together, which share their millisecond, else the time now.
   */
  line(msg: string, members: string, time?: string): string;
  /** The `time` of a line made now. */
  now(): string;
  /** Writes the text of whole lines, made by `line`, at once. */
  write(text: string): void;
}

/** InfoLines for `logger`; undefined when it is not shaped like a pino logger of this version (then writeInfoLine). */
export function infoLines(logger: Logger): InfoLines | undefined {
  const internals = logger as unknown as Partial<Record<symbol, unknown>>;
  const destination = internals[pino.symbols.streamSym] as LineDestination | undefined;
  const bindings = internals[pino.symbols.chindingsSym];
  if (destination === undefined || typeof bindings !== 'string') return undefined;
  const head = `{"level":"info","time":"`;
  const afterTime = `"${bindings}`;
  // Most writers write one message over and over (`decision`).
  let lastMsg = '';
  let lastMsgJson = '""';
  return {
    enabled: () => logger.isLevelEnabled('info'),
    now: isoNow,
    line: (msg, members, time = isoNow()) => {
      if (msg !== lastMsg) {
        lastMsg = msg;
        lastMsgJson = JSON.stringify(msg);
      }
      return `${head}${time}${afterTime}${members === '' ? '' : `,${members}`},"msg":${lastMsgJson}}\n`;
    },
    write: (text) => {
      destination.write(text);
    },
  };
}
