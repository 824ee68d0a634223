import type { Outage } from '../fetch/outage-memo.js';
import type { RunMeta } from './run-store.js';

/**
 * Thrown into a slice's read when `bvsync cancel` dropped its run while the slice was being paged: the pages read so
 * far are dropped and nothing of the slice is loaded or recorded, as for a slice whose fetch job was still queued.
 */
export class RunCancelledError extends Error {
  override readonly name = 'RunCancelledError';
}

function runCancelled(runId: string): RunCancelledError {
  return new RunCancelledError(`run ${runId} was cancelled while this slice was read: it stops here and is not loaded`);
}

/**
 * Thrown into a slice's read when its run gave up on an API that is away (`sync.outageToleranceMinutes`): the slice
 * fails as the run's queued ones do, so calls in flight do not each wait out the tolerance anew.
 */
export class RunGaveUpError extends Error {
  override readonly name = 'RunGaveUpError';
}

/** How often a read looks at its run's record: it bounds the requests a slice still sends after a cancel. */
const CANCEL_POLL_MS = 1_000;

export interface CancelWatch {
  /** Aborts with a RunCancelledError once the run is cancelled, or with `parent`'s reason. */
  signal: AbortSignal;
  stop(): void;
}

export interface RunWatchOptions {
  /** Aborted with the process (shutdown): the read stops with its reason. */
  parent?: AbortSignal | undefined;
  /** How often the run's records are read; default CANCEL_POLL_MS. */
  everyMs?: number;
  /**
   * The outage the run gave up on that stops this process's reads (`Availability.stopsRead`): the read stops with a
   * RunGaveUpError. Default none.
   */
  availability?: { stopsRead(runId: string): Promise<Outage | undefined> } | undefined;
}

/**
 * Watches a run while a slice is read, so a cancel or a give-up (RunGaveUpError) stops slices mid-fetch, not only
 * queued ones. Read now, then every `everyMs`; an unreadable record leaves the read going: only a known stop stops it.
 */
export function watchRun(
  runs: { get(runId: string): Promise<RunMeta | null> },
  runId: string,
  options: RunWatchOptions = {},
): CancelWatch {
  const { parent, everyMs = CANCEL_POLL_MS, availability } = options;
  const cancel = new AbortController();
  const look = () => {
    runs.get(runId).then(
      (meta) => {
        if (meta?.status === 'cancelled' && !cancel.signal.aborted) cancel.abort(runCancelled(runId));
      },
      () => {},
    );
    availability?.stopsRead(runId).then(
      (outage) => {
        if (!outage || cancel.signal.aborted) return;
        cancel.abort(
          new RunGaveUpError(
            `run ${runId} stopped waiting for the API (away since ${new Date(outage.since).toISOString()}) while this slice was read`,
          ),
        );
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
