/**
 * Calls a port so that nothing it does can escape as an exception: a synchronous throw, a rejection or a non-promise
 * answer all become a settled promise of the answer or of `failed`.
 */
export const PORT_FAILED = Symbol('port failed');

export function callPort<T>(call: () => Promise<T>): Promise<T | typeof PORT_FAILED> {
  try {
    return Promise.resolve(call()).then(
      (answer) => answer,
      () => PORT_FAILED,
    );
  } catch {
    // A port that throws instead of rejecting is treated the same way: it failed.
    return Promise.resolve(PORT_FAILED);
  }
}
