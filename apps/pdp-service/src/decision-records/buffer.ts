import type { EngineEvent } from '@custos/policy-engine';
import type { DecisionRecord } from '../decision/log';

/** Where the decision pipeline hands its answered decisions (the Decider carries one when records are on). */
export interface DecisionRecordSink {
  add(record: DecisionRecord, event: EngineEvent | undefined): void;
}

/** One batch of records, published by whoever the buffer was given (the NATS publisher; a list in unit tests). */
export type PublishBatch = (batch: readonly BufferedRecord[]) => Promise<void>;

export interface BufferedRecord {
  record: DecisionRecord;
  event: EngineEvent | undefined;
  /** When it was answered (ms since the epoch). */
  at: number;
}

export interface RecordBufferOptions {
  /** Records held at most; one more is dropped and counted. */
  capacity: number;
  /** A record waits at most this long before its batch goes. */
  flushMs: number;
  /** A batch of this many goes at once. */
  batchSize: number;
  publish: PublishBatch;
  onDropped(count: number): void;
  onPublished(count: number): void;
  /** A batch that could not be published: its records are counted dropped too. */
  onFailed(error: unknown, count: number): void;
  now?: () => number;
}

/**
 * The bounded buffer between the answers and the stream. `add` is all the answer's path does: one push of objects it
 * already has (the record, the event, the time), or — when the buffer is full — one counter step instead. Encoding and
 * publishing happen later, in batches: when `batchSize` records are waiting (on the next turn of the event loop), or
 * `flushMs` after the first record of a batch. One batch is published at a time; records that arrive meanwhile wait
 * in the buffer, and a buffer filled while NATS is slow drops (and counts) rather than grow or hold an answer.
 */
export class DecisionRecordBuffer implements DecisionRecordSink {
  private pending: BufferedRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private dropCount: NodeJS.Immediate | undefined;
  private publishing: Promise<void> | undefined;
  private dropped = 0;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly options: RecordBufferOptions) {
    this.now = options.now ?? Date.now;
  }

  add(record: DecisionRecord, event: EngineEvent | undefined): void {
    if (this.closed || this.pending.length >= this.options.capacity) {
      this.dropped += 1;
      this.scheduleDropCount();
      return;
    }
    this.pending.push({ record, event, at: this.now() });
    if (this.pending.length >= this.options.batchSize) this.scheduleNow();
    else if (this.timer === undefined) {
      this.timer = setTimeout(this.flush, this.options.flushMs);
      this.timer.unref();
    }
  }

  /** Records waiting to be published. */
  get waiting(): number {
    return this.pending.length;
  }

  /** Publishes what is waiting (and what arrives while it does) and stops taking records. */
  async close(): Promise<void> {
    this.closed = true;
    this.clearSchedule();
    while (this.pending.length > 0 || this.publishing !== undefined) {
      await (this.publishing ?? this.publishNext());
    }
    if (this.dropCount !== undefined) clearImmediate(this.dropCount);
    this.dropCount = undefined;
    this.countDropped();
  }

  /** Publishes what is waiting now; resolves when that batch is out (tests and close). */
  readonly flush = (): Promise<void> => {
    this.clearSchedule();
    this.countDropped();
    return this.publishing ?? this.publishNext();
  };

  private publishNext(): Promise<void> {
    if (this.pending.length === 0) return Promise.resolve();
    const batch = this.pending.slice(0, this.options.batchSize);
    this.pending = this.pending.slice(batch.length);
    const { options } = this;
    const done = options.publish(batch).then(
      () => options.onPublished(batch.length),
      (error: unknown) => options.onFailed(error, batch.length),
    );
    this.publishing = done.then(() => {
      this.publishing = undefined;
      // What arrived while this batch was out: on at once when a batch is full, else on the timer.
      if (this.closed) return;
      if (this.pending.length >= options.batchSize) this.scheduleNow();
      else if (this.pending.length > 0 && this.timer === undefined) {
        this.timer = setTimeout(this.flush, options.flushMs);
        this.timer.unref();
      }
    });
    return this.publishing;
  }

  private scheduleNow(): void {
    if (this.immediate !== undefined || this.publishing !== undefined) return;
    this.immediate = setImmediate(() => {
      this.immediate = undefined;
      void this.flush();
    });
  }

  /** Drops are counted off the answer's path too, once per turn. */
  private scheduleDropCount(): void {
    if (this.dropCount !== undefined) return;
    this.dropCount = setImmediate(() => {
      this.dropCount = undefined;
      this.countDropped();
    });
  }

  private countDropped(): void {
    if (this.dropped === 0) return;
    const count = this.dropped;
    this.dropped = 0;
    this.options.onDropped(count);
  }

  private clearSchedule(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.immediate !== undefined) clearImmediate(this.immediate);
    this.immediate = undefined;
  }
}
