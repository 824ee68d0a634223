import type { ApiRequestEvent } from '../api/index.js';
import type { SliceStatus } from '../vocabulary.js';
import type { NewestCompleteDay } from '../warehouse/state/bookkeeping.js';

/** Jobs of one queue by state, as `Queue.getJobCounts` gives them. */
export type QueueCounts = Record<string, number>;

/** The newest complete past day of one brand and stream, from `_sync_state`. */
export type FreshnessRow = NewestCompleteDay;

/** Outcome of a slice as its fetch job reports it. */
export type SliceOutcomeStatus = SliceStatus | 'retry' | 'cancelled';

/**
 * What the engine tells the metrics about, at the moments it knows them. The fetch and load processors call it when
 * a `WorkerHost` is given one; it is an interface so `src/engine/` never depends on prom-client, and tests can record calls.
 */
export interface SyncMetrics {
  /** Every HTTP attempt of the API client (from its `onRequest` hook). */
  request(event: ApiRequestEvent): void;
  /** A 429 paused the fetch queue for this long. */
  rateLimitedPause(ms: number): void;
  /** A fetch job ended: the slice's stream, how it ended, and how long it took. */
  sliceFetched(stream: string, status: SliceOutcomeStatus, seconds: number): void;
  /** A commit job wrote a slice into DuckDB in one transaction, taking this long. */
  sliceCommitted(stream: string, status: SliceStatus, seconds: number): void;
  /** Rows a commit wrote into one table. */
  rowsLoaded(table: string, rows: number): void;
  /** Records a commit set aside in `_rejected_records`, by the stream they came from. */
  rowsRejected(stream: string, rows: number): void;
  /** The writer finalized a run (or marked it failed for good) with this status. */
  runFinished(kind: string, status: string): void;
  /** A scheduled run's plan left this many slices to the unfinished run that held them (not read twice). */
  slicesHeld?(count: number): void;
  /** A round of `sync.heal` ended: its status, the disagreements it leaves persisting, its requests (docs/healing.md). */
  healRound?(round: { status: string; persisting: number; requests: number }): void;
  /** The writer reopened DuckDB to hand back the memory it kept (`warehouse.reopenAboveMb`), taking `ms`. */
  warehouseReopened?(ms: number): void;
  /** The writer wrote the Parquet lake after a publish (`ok`), or could not (`failed`: the lake is behind). */
  lakeWritten(outcome: 'ok' | 'failed'): void;
}
