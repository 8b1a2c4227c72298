/**
 * Resolves after `ms`, or at once when `signal` aborts (a stopping service wakes its sleepers; they then look at
 * why they woke). Never rejects.
 */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted === true) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const wake = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', wake);
      resolve();
    };
    const timer = setTimeout(wake, Math.max(0, ms));
    signal?.addEventListener('abort', wake, { once: true });
  });
}

/** A point in time work must finish by. */
export interface Deadline {
  /** Milliseconds left, never below 0. */
  remainingMs(): number;
  passed(): boolean;
}

/** The deadline `ms` from now. */
export function deadlineIn(ms: number): Deadline {
  const at = Date.now() + ms;
  return {
    remainingMs: () => Math.max(0, at - Date.now()),
    passed: () => Date.now() >= at,
  };
}
