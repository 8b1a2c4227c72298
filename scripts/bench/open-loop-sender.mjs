// The sending half of scripts/bench/open-loop.mjs, in a worker thread: it writes each request at its own due moment
// and does nothing else. Not a script of its own.
//
// Why a thread: the main thread's only sleep is libuv's, whose timers and epoll timeout count whole milliseconds, so
// a generator that sends from there sends bursts on millisecond ticks, up to ~1 ms (and at a few thousand per second,
// ~2 ms at the p99) after the due moments. Here the thread sleeps in Atomics.wait, whose timeout is a futex timeout
// with a sub-millisecond deadline (Linux's default timer slack lets it wake up to 50 µs late), and writes a request
// with one write(2) on the socket's descriptor (fs.writeSync): no event loop, no stream, no promise. The main thread
// keeps the sockets (it reads the answers); a connection is handed back and forth through a shared state cell per
// connection (0 idle, 1 busy, 2 closed, 3 not yet usable by this thread), claimed with compare-and-exchange.
// It costs one wake-up per request (~tens of µs of CPU on this VM), about what a timer tick per millisecond cost
// the old generator at 1,000/s and more at higher rates; it never spins except for the few µs a wait ends early.
import { writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { clockOrigin } from './lib/clock-origin.mjs';

const { requests, targetCount, total, warmup, intervalMs, mainOriginHr, startDelayMs } = workerData;
const state = new Int32Array(workerData.state);
const fds = new Int32Array(workerData.fds);
const targetOf = new Int32Array(workerData.targetOf);
const indexOf = new Int32Array(workerData.indexOf);
const times = new Float64Array(workerData.times);
const slotCount = new Int32Array(workerData.slotCount);
const sendLag = new Float64Array(workerData.sendLag);
const sleepCell = new Int32Array(new SharedArrayBuffer(4));
const bytes = requests.map((list) => list.map((request) => Buffer.from(request)));

// This thread's clock in the main thread's frame (each thread's performance.now() may count from its own origin).
const shift = clockOrigin() - mainOriginHr;
const now = () => performance.now() + shift;

/** Claims an idle connection of `target` (its slot), or -1 when every one is busy. */
function claim(target) {
  const count = Atomics.load(slotCount, 0);
  for (let slot = 0; slot < count; slot++) {
    if (targetOf[slot] === target && Atomics.compareExchange(state, slot, 0, 1) === 0) return slot;
  }
  return -1;
}

function send(index, due) {
  const target = index % targetCount;
  const slot = claim(target);
  // No idle connection: the main thread opens one or queues the request (still timed from its due moment).
  if (slot < 0) return parentPort.postMessage({ overflow: index, due });
  const sentAt = now();
  times[2 * slot] = due;
  times[2 * slot + 1] = sentAt;
  // Published after the times, so whoever reads the index sees them.
  Atomics.store(indexOf, slot, index);
  if (index >= warmup) sendLag[index - warmup] = sentAt - due;
  const list = bytes[target];
  try {
    writeSync(fds[slot], list[index % list.length]);
  } catch {
    // A full send buffer or a closing socket: the main thread writes it through the socket, or fails it.
    parentPort.postMessage({ resend: slot });
  }
}

const started = now() + startDelayMs;
parentPort.postMessage({ started });
for (let index = 0; index < total; index++) {
  const due = started + index * intervalMs;
  // A wait may end a little early: wait again for what is left (spinning only under 20 µs).
  for (let left = due - now(); left > 0; left = due - now()) {
    if (left > 0.02) Atomics.wait(sleepCell, 0, 0, left);
  }
  send(index, due);
}
parentPort.postMessage({ sentAll: true });
