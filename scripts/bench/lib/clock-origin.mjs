// Where this thread's performance.now() counts from, in process.hrtime's milliseconds: two threads' figures give the
// shift between their clocks. A first call of either clock can take a millisecond (lazy set-up, a busy machine), so
// the reading bracketed most tightly by two performance.now() calls of a few is taken.
export function clockOrigin() {
  let best = Infinity;
  let origin = 0;
  for (let attempt = 0; attempt < 8; attempt++) {
    const before = performance.now();
    const hr = Number(process.hrtime.bigint()) / 1e6;
    const after = performance.now();
    if (after - before < best) {
      best = after - before;
      origin = hr - (before + after) / 2;
    }
  }
  return origin;
}
