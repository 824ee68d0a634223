/**
 * The status words of bvsync, defined once: the CLI prints them, Redis keeps them in a run's record, and DuckDB stores
 * them in `_sync_state` and `_sync_runs`, so what `bvsync status` says can be looked up in the warehouse as it is.
 */

/** How one slice ended: every row read, fewer distinct rows than the API's `total_rows`, or an error. */
export const SLICE_STATUSES = ['complete', 'incomplete', 'failed'] as const;
export type SliceStatus = (typeof SLICE_STATUSES)[number];

/**
 * What started a run: `bvsync sync`, `bvsync backfill`, a cron slot of `bvsync scheduler`, or `sync.heal` re-reading
 * the days a scheduled run's comparison found wrong (docs/healing.md).
 */
export const RUN_KINDS = ['sync', 'backfill', 'scheduled', 'heal'] as const;
export type RunKind = (typeof RUN_KINDS)[number];

/** A run still going: waiting for its plan, fetching and loading slices, or moving cursors and publishing. */
export const UNFINISHED_RUN_STATUSES = ['planning', 'running', 'finalizing'] as const;
/**
 * How a run ended: every slice complete; some slices incomplete or failed; every slice failed, or a load job
 * failed for good; dropped by `bvsync cancel`.
 */
export const FINISHED_RUN_STATUSES = ['complete', 'incomplete', 'failed', 'cancelled'] as const;
export const RUN_STATUSES = [...UNFINISHED_RUN_STATUSES, ...FINISHED_RUN_STATUSES] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];
export type FinishedRunStatus = (typeof FINISHED_RUN_STATUSES)[number];

/**
 * The statuses `_sync_runs` stores: DuckDB learns of a run when its plan starts and of its end when it finishes, so
 * the steps in between are all `running` there.
 */
export const RUN_LOG_STATUSES = ['running', ...FINISHED_RUN_STATUSES] as const;
export type RunLogStatus = (typeof RUN_LOG_STATUSES)[number];

export function isFinishedRunStatus(status: string): status is FinishedRunStatus {
  return (FINISHED_RUN_STATUSES as readonly string[]).includes(status);
}

/** A finished run's status from its slices: complete when all are, failed when all failed, else incomplete. */
export function runStatusOfSlices(slices: {
  total: number;
  failed: number;
  incomplete: number;
}): Exclude<FinishedRunStatus, 'cancelled'> {
  if (slices.failed === 0 && slices.incomplete === 0) return 'complete';
  if (slices.failed === slices.total) return 'failed';
  return 'incomplete';
}
