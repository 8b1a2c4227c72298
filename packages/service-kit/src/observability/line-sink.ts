import { writeSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/**
 * A destination for log lines whose writes happen on a worker thread: the caller's thread only copies each
 * line into a shared ring buffer, the worker drains the ring to the file descriptor in large batches.
 *
 * - Lossless up to a bound: up to `capacityBytes` of lines may wait in the ring. When a reader of the
 *   descriptor falls that far behind (a stalled pipe), further lines are dropped and counted instead of
 *   blocking the caller or growing memory; the next line that fits is preceded by a warn line that says how
 *   many were dropped (`log lines dropped`, field `dropped`).
 * - Flushed on exit: `flush(cb)` (pino's `logger.flush`) calls back once everything written so far is out, and
 *   at process exit the ring is drained synchronously (bounded by `exitWaitMs`).
 * - The worker is started by the first line, so a silent logger starts none, and it never keeps a process alive.
 *   Should it fail, lines are written synchronously on the caller's thread from then on.
 */
export interface LineSink {
  write(line: string): boolean;
  flush(callback?: (error?: Error) => void): void;
  /** Blocks until every line written so far is out (or `exitWaitMs` passed). */
  flushSync(): void;
  /** Lines dropped so far because the ring was full. */
  readonly dropped: number;
}

export interface LineSinkOptions {
  /** Bytes of lines that may wait for the worker; more are dropped. */
  capacityBytes?: number;
  /** How long `flushSync` (and so process exit) waits for the worker at most. */
  exitWaitMs?: number;
  /** How long `flush` waits at most before it calls back with an error. */
  flushWaitMs?: number;
  /** The `service` field of the line that reports dropped lines. */
  service?: string;
  /** How long lines may gather before the worker writes them, at most (default NAP_MS); a batch of BATCH_BYTES goes at once. */
  napMs?: number;
}

// Slots of the control array shared with the worker.
/** Bytes in the ring not yet written out; added to by the writer, subtracted by the worker after each write. */
const USED = 0;
/** Greater than 0 while somebody waits for a flush: the worker then writes at once instead of gathering a batch. */
const URGENT = 1;
/** Never changes: the worker's timed naps wait on it, and a flush request wakes them. */
const NAP = 2;
const CONTROL_SLOTS = 3;
/** How long the worker lets lines gather before it writes them, at most, unless `napMs` says otherwise. */
const NAP_MS = 50;
/** Bytes that end a nap early: the writer wakes the napping worker when the ring holds this much. */
const BATCH_BYTES = 64 * 1024;

/**
 * The worker, as source text (evaluated, so that it runs the same from `src` under ts-jest and from `dist`).
 * It writes what the ring holds; while nobody waits for a flush it lets lines gather for up to NAP_MS first, or
 * until BATCH_BYTES have (the writer then wakes it), so that a service makes a few large writes a second instead of
 * one per line.
 * While lines keep coming it does not go back to waiting for the writer's notify after a write: it naps for the
 * next NAP_MS and writes what gathered in them, so a busy service wakes it once per nap, not twice (the notify, then
 * the nap's end); a nap that gathered nothing sends it back to waiting for a notify. Each wake-up of a sleeping
 * thread costs tens of µs on a virtual machine, more than the write of a nap's lines: at a steady 333 decisions a
 * second (a replica's share of 1,000/s over three) naps of 10 ms woke it 0.37 times per decision, naps of 50 ms
 * 0.12 (BENCHMARKS.md, issue 26, session 9). A line reaches the descriptor at most NAP_MS after it was written.
 */
const WORKER_SOURCE = String.raw`
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const { fd, data, control, napMs } = workerData;
const bytes = new Uint8Array(data);
const ctl = new Int32Array(control);
const capacity = bytes.length;
const BATCH = ${BATCH_BYTES};
const NAP_MS = napMs;
let read = 0;
// Whether lines came in the last nap (then more are likely: nap again rather than wait for a notify).
let recent = false;
// Whether what the ring holds gathered during a nap already (then it is written at once).
let gathered = false;
const writeAll = (view) => {
  let offset = 0;
  while (offset < view.length) {
    try {
      offset += writeSync(fd, view, offset, view.length - offset);
    } catch (error) {
      // A non-blocking descriptor whose reader is behind: wait for it; anything else (closed, EPIPE)
      // means these lines cannot be written anywhere.
      if (error.code !== 'EAGAIN') return;
      Atomics.wait(ctl, ${NAP}, 0, 1);
    }
  }
};
for (;;) {
  let used = Atomics.load(ctl, ${USED});
  if (used === 0) {
    if (!recent) {
      Atomics.wait(ctl, ${USED}, 0);
      recent = true;
      continue;
    }
    Atomics.wait(ctl, ${NAP}, 0, NAP_MS);
    gathered = Atomics.load(ctl, ${USED}) !== 0;
    recent = gathered;
    continue;
  }
  if (!gathered && used < BATCH && Atomics.load(ctl, ${URGENT}) === 0) {
    Atomics.wait(ctl, ${NAP}, 0, NAP_MS);
    used = Atomics.load(ctl, ${USED});
  }
  gathered = false;
  const end = read + used;
  if (end <= capacity) writeAll(bytes.subarray(read, end));
  else {
    writeAll(bytes.subarray(read));
    writeAll(bytes.subarray(0, end - capacity));
  }
  read = end % capacity;
  Atomics.sub(ctl, ${USED}, used);
  Atomics.notify(ctl, ${USED});
}
`;

const live = new Set<WorkerLineSink>();
let exitHookInstalled = false;
const installExitHook = () => {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const sink of live) sink.flushSync();
  });
};

class WorkerLineSink implements LineSink {
  private readonly capacity: number;
  private readonly exitWaitMs: number;
  private readonly flushWaitMs: number;
  private readonly napMs: number;
  private readonly reportPrefix: string;
  private readonly encoder = new TextEncoder();
  private bytes: Uint8Array | undefined;
  private control: Int32Array | undefined;
  private worker: Worker | undefined;
  /** Where the next line goes in the ring. */
  private writeAt = 0;
  /** Set once the worker failed: lines are then written synchronously, here. */
  private failed = false;
  private droppedLines = 0;
  /** Drops not yet reported in a line. */
  private unreported = 0;

  constructor(
    private readonly fd: number,
    options: LineSinkOptions,
  ) {
    this.capacity = options.capacityBytes ?? 4 * 1024 * 1024;
    this.exitWaitMs = options.exitWaitMs ?? 2000;
    this.flushWaitMs = options.flushWaitMs ?? 10_000;
    this.napMs = options.napMs ?? NAP_MS;
    this.reportPrefix = options.service === undefined ? '' : `,"service":${JSON.stringify(options.service)}`;
  }

  get dropped(): number {
    return this.droppedLines;
  }

  write(line: string): boolean {
    if (this.bytes === undefined) this.start();
    if (this.failed) return this.writeHere(line);
    if (this.unreported > 0) {
      const report =
        `{"level":"warn","time":"${new Date().toISOString()}"${this.reportPrefix},"msg":"log lines dropped","dropped":${this.unreported}}\n`;
      if (!this.append(report)) {
        this.drop(line);
        return false;
      }
      this.unreported = 0;
    }
    if (this.append(line)) return true;
    this.drop(line);
    return false;
  }

  flush(callback: (error?: Error) => void = () => undefined): void {
    const control = this.control;
    if (control === undefined || this.failed) {
      callback();
      return;
    }
    Atomics.add(control, URGENT, 1);
    Atomics.notify(control, NAP);
    const deadline = Date.now() + this.flushWaitMs;
    const check = () => {
      if (Atomics.load(control, USED) === 0 || this.failed) {
        Atomics.sub(control, URGENT, 1);
        callback();
      } else if (Date.now() >= deadline) {
        Atomics.sub(control, URGENT, 1);
        callback(new Error(`log lines still unwritten after ${this.flushWaitMs} ms`));
      } else setTimeout(check, 1);
    };
    check();
  }

  flushSync(): void {
    const control = this.control;
    if (control === undefined || this.failed) return;
    Atomics.add(control, URGENT, 1);
    Atomics.notify(control, NAP);
    const deadline = Date.now() + this.exitWaitMs;
    for (;;) {
      const used = Atomics.load(control, USED);
      const left = deadline - Date.now();
      if (used === 0 || left <= 0) break;
      Atomics.wait(control, USED, used, left);
    }
    Atomics.sub(control, URGENT, 1);
  }

  /** Copies the line into the ring and wakes the worker if it sleeps; false when it does not fit. */
  private append(line: string): boolean {
    const bytes = this.bytes;
    const control = this.control;
    if (bytes === undefined || control === undefined) return false;
    const free = this.capacity - Atomics.load(control, USED);
    // UTF-8 needs at most 3 bytes per UTF-16 unit; count exactly only when that bound does not fit.
    if (line.length * 3 > free && Buffer.byteLength(line) > free) return false;
    const first = this.encoder.encodeInto(line, bytes.subarray(this.writeAt));
    let written = first.written;
    // encodeInto stops before a character that does not fit, so the rest starts on a character boundary.
    if (first.read < line.length) written += this.encoder.encodeInto(line.slice(first.read), bytes).written;
    this.writeAt = (this.writeAt + written) % this.capacity;
    // The worker waits for a notify only on an empty ring: waking it is needed only when this line made it non-empty
    // (while it naps between writes, the notify finds nobody waiting and costs no wake-up). A nap is cut short once
    // a batch has gathered, so a busy service's lines wait neither the whole nap nor in a ring filling up.
    const before = Atomics.add(control, USED, written);
    if (before === 0) Atomics.notify(control, USED);
    else if (before < BATCH_BYTES && before + written >= BATCH_BYTES) Atomics.notify(control, NAP);
    return true;
  }

  private writeHere(line: string): boolean {
    try {
      writeSync(this.fd, line);
      return true;
    } catch {
      this.drop(line);
      return false;
    }
  }

  /** Counts the lines of `text` as dropped (a write may carry several lines). */
  private drop(text: string): void {
    let lines = 0;
    for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
    const count = Math.max(1, lines);
    this.droppedLines += count;
    this.unreported += count;
  }

  private start(): void {
    const data = new SharedArrayBuffer(this.capacity);
    const control = new SharedArrayBuffer(CONTROL_SLOTS * Int32Array.BYTES_PER_ELEMENT);
    this.bytes = new Uint8Array(data);
    this.control = new Int32Array(control);
    try {
      this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { fd: this.fd, data, control, napMs: this.napMs } });
    } catch {
      this.fail();
      return;
    }
    this.worker.unref();
    this.worker.on('error', () => this.fail());
    this.worker.on('exit', () => this.fail());
    live.add(this);
    installExitHook();
  }

  /** The worker is gone: what it left in the ring, and every later line, is written here. */
  private fail(): void {
    if (this.failed) return;
    this.failed = true;
    live.delete(this);
    const bytes = this.bytes;
    const control = this.control;
    if (bytes === undefined || control === undefined) return;
    const used = Atomics.load(control, USED);
    const start = (this.writeAt - used + this.capacity) % this.capacity;
    try {
      if (start + used <= this.capacity) writeSync(this.fd, bytes.subarray(start, start + used));
      else {
        writeSync(this.fd, bytes.subarray(start));
        writeSync(this.fd, bytes.subarray(0, start + used - this.capacity));
      }
    } catch {
      // nowhere left to write them
    }
  }
}

/** A line sink for `fd` (1 for stdout) that writes on a worker thread; see LineSink. */
export function createLineSink(fd: number, options: LineSinkOptions = {}): LineSink {
  return new WorkerLineSink(fd, options);
}
