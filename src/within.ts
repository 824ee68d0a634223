/** What a promise came to: its value or error, or `timedOut` when `ms` passed first. */
export interface WithinOutcome<T> {
  timedOut: boolean;
  value?: T;
  error?: Error;
}

/**
 * Waits for a promise at most `ms`; a late one is left to settle alone, so a call to a Redis that went away cannot
 * hold a probe, a scrape or a shutdown (test/ops/health.int.test.ts, test/engine/writer-lease.int.test.ts).
 */
export async function within<T>(promise: Promise<T>, ms: number): Promise<WithinOutcome<T>> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<WithinOutcome<T>>((resolve) => (timer = setTimeout(() => resolve({ timedOut: true }), ms)));
  const settled = promise.then(
    (value): WithinOutcome<T> => ({ timedOut: false, value }),
    (error: unknown): WithinOutcome<T> => ({
      timedOut: false,
      error: error instanceof Error ? error : new Error(String(error)),
    }),
  );
  try {
    return await Promise.race([settled, limit]);
  } finally {
    clearTimeout(timer);
  }
}
