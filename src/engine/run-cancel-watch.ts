import type { RunMeta } from './run-store.js';

/**
 * Thrown into a slice's read when `bvsync cancel` dropped its run while the slice was being paged: the pages read so
 * far are dropped and nothing of the slice is loaded or recorded, as for a slice whose fetch job was still queued.
 */
export class RunCancelledError extends Error {
  override readonly name = 'RunCancelledError';
}

export function runCancelled(runId: string): RunCancelledError {
  return new RunCancelledError(`run ${runId} was cancelled while this slice was read: it stops here and is not loaded`);
}

/** How often a read looks at its run's record: at a real API's 10 requests/s, at most ~10 requests after a cancel. */
export const CANCEL_POLL_MS = 1_000;

export interface CancelWatch {
  /** Aborts with a RunCancelledError once the run is cancelled, or with `parent`'s reason. */
  signal: AbortSignal;
  stop(): void;
}

/**
 * Watches one run for `bvsync cancel` while a slice of it is read, so a cancel stops the requests of slices already
 * being fetched too, not only the queued ones (a slice can be hundreds of pages). The run's record is read at once
 * and then every `everyMs`; a record that cannot be read leaves the read going: only a run known cancelled stops it.
 */
export function watchForCancel(
  runs: { get(runId: string): Promise<RunMeta | null> },
  runId: string,
  parent?: AbortSignal,
  everyMs = CANCEL_POLL_MS,
): CancelWatch {
  const cancel = new AbortController();
  const look = () => {
    runs.get(runId).then(
      (meta) => {
        if (meta?.status === 'cancelled' && !cancel.signal.aborted) cancel.abort(runCancelled(runId));
      },
      () => {},
    );
  };
  look();
  const timer = setInterval(look, everyMs);
  timer.unref();
  return {
    signal: parent ? AbortSignal.any([parent, cancel.signal]) : cancel.signal,
    stop: () => clearInterval(timer),
  };
}
