import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import type { FinishedRunStatus, RunKind, RunLogStatus, SliceStatus } from '../../vocabulary.js';
import { readRows } from '../read-rows.js';
import type { SliceState } from '../load/slice-batch.js';
import type { SliceKey } from './bookkeeping.js';
import { brandStreamId } from '../../slice-ids.js';

export interface RunStart {
  runId: string;
  kind: RunKind;
  brands: number[];
  streams: string[];
  /** The days the run covers (`YYYY-MM-DD`), when it covers a window. */
  windowStart?: string | null;
  windowEnd?: string | null;
}

/** What the slices of a run add to its row of `_sync_runs`. */
export interface RunCounters {
  slices: number;
  requests: number;
  rows: number;
  rejects: number;
  errors: number;
  retries: number;
  rateLimited: number;
}

export interface RunRow extends RunStart, RunCounters {
  startedAt: string;
  finishedAt: string | null;
  status: RunLogStatus;
}

export interface SliceStateRow
  extends SliceKey,
    Pick<SliceState, 'status' | 'rows' | 'totalRows' | 'attempts' | 'requests' | 'lastError'> {
  day: string | null;
  errorCode: string | null;
  requestId: string | null;
  runId: string | null;
  completedAt: string | null;
  updatedAt: string;
  /**
   * The latest attempt at the slice. It differs from the state above when it came out worse (a failed or incomplete
   * re-fetch of a slice that had loaded): the state keeps the last good load, the attempt is recorded here.
   */
  lastAttempt: {
    status: SliceStatus;
    at: string | null;
    runId: string | null;
    error: string | null;
    errorCode: string | null;
    requestId: string | null;
    attempts: number | null;
  };
}

export interface SliceStateFilter {
  brandId?: number;
  stream?: string;
  status?: SliceStatus | SliceStatus[];
  /** The first day of the slices (`YYYY-MM-DD`, inclusive); slices without a day are left out when set. */
  fromDay?: string;
  /**
   * The slices this run attempted, each with the outcome of the run's attempt as its `status` (also when the attempt
   * was recorded beside a better state it did not replace), so a run's own failures count in its outcome.
   */
  runId?: string;
}

/**
 * Records the start of a run. Slices may have loaded under the run id already (their counters created the
 * row): the counters are kept and the description filled in.
 */
export async function startRun(connection: DuckDBConnection, run: RunStart): Promise<void> {
  await connection.run(
    `INSERT INTO _sync_runs (run_id, kind, brands, streams, window_start, window_end, started_at, status)
     VALUES ($1, $2, CAST(CAST($3 AS JSON) AS BIGINT[]), CAST(CAST($4 AS JSON) AS VARCHAR[]),
             CAST($5 AS DATE), CAST($6 AS DATE), current_timestamp, 'running')
     ON CONFLICT (run_id) DO UPDATE SET kind = EXCLUDED.kind, brands = EXCLUDED.brands, streams = EXCLUDED.streams,
       window_start = EXCLUDED.window_start, window_end = EXCLUDED.window_end`,
    [
      run.runId,
      run.kind,
      JSON.stringify(run.brands),
      JSON.stringify(run.streams),
      run.windowStart ?? null,
      run.windowEnd ?? null,
    ],
  );
}

/** Whether `_sync_runs` has a row for the run (its plan started, or its slices loaded under its id). */
export async function hasRun(connection: DuckDBConnection, runId: string): Promise<boolean> {
  return (await readRows(connection, 'SELECT 1 FROM _sync_runs WHERE run_id = $1', [runId])).length > 0;
}

export async function finishRun(connection: DuckDBConnection, runId: string, status: FinishedRunStatus): Promise<void> {
  const result = await connection.run(
    `UPDATE _sync_runs SET status = $2, finished_at = current_timestamp WHERE run_id = $1`,
    [runId, status],
  );
  if (result.rowsChanged === 0) throw new Error(`no run ${runId} to finish; startRun was not called`);
}

/** API calls of a run that no slice's load counted, e.g. those of a slice stopped by `bvsync cancel` mid-read. */
export type UncountedRequests = Pick<RunCounters, 'requests' | 'retries' | 'rateLimited'>;

/**
 * Adds calls of the run that no slice carried into `_sync_runs` (a slice's own calls reach it with its load); returns
 * the run's status there, or undefined when it has no row (startRun first).
 */
export async function addUncountedRequests(
  connection: DuckDBConnection,
  runId: string,
  calls: UncountedRequests,
): Promise<RunLogStatus | undefined> {
  const rows = await readRows(
    connection,
    `UPDATE _sync_runs SET requests = requests + CAST($2 AS BIGINT), retries = retries + CAST($3 AS BIGINT),
       rate_limited = rate_limited + CAST($4 AS BIGINT)
     WHERE run_id = $1 RETURNING status`,
    [runId, calls.requests, calls.retries, calls.rateLimited],
  );
  return rows[0]?.status as RunLogStatus | undefined;
}

/**
 * Moves the incremental position of a brand's stream forward to `day`; never backwards, so a late, slower
 * run cannot undo a newer one. Returns the position now stored.
 */
export async function advanceCursor(
  connection: DuckDBConnection,
  brandId: number,
  stream: string,
  day: string,
  runId: string,
): Promise<string> {
  const [stored] = await readRows(
    connection,
    `INSERT INTO _sync_cursors (brand_id, stream, through_day, run_id, updated_at)
     VALUES (CAST($1 AS BIGINT), $2, CAST($3 AS DATE), $4, current_timestamp)
     ON CONFLICT (brand_id, stream) DO UPDATE SET
       run_id = CASE WHEN EXCLUDED.through_day >= _sync_cursors.through_day THEN EXCLUDED.run_id ELSE _sync_cursors.run_id END,
       through_day = greatest(_sync_cursors.through_day, EXCLUDED.through_day),
       updated_at = EXCLUDED.updated_at
     RETURNING CAST(through_day AS VARCHAR) AS through_day`,
    [brandId, stream, day, runId],
  );
  return stored!.through_day as string;
}

/** Every incremental cursor, keyed `brand|stream`, in one query for a plan. */
export async function cursors(connection: DuckDBConnection): Promise<Map<string, string>> {
  const rows = await readRows(
    connection,
    'SELECT brand_id, stream, CAST(through_day AS VARCHAR) AS through_day FROM _sync_cursors',
  );
  return new Map(rows.map((row) => [brandStreamId(Number(row.brand_id), String(row.stream)), String(row.through_day)]));
}

/** A slice's outcome in one run: what finalize needs of every slice, without the errors and counters of `sliceStates`. */
export type SliceOutcome = Pick<SliceStateRow, 'brandId' | 'stream' | 'day' | 'status'>;

/**
 * Each slice's status in the run's attempt, as `sliceStates({ runId })` reads it (test/warehouse/loader.int.test.ts):
 * finalize reads every slice of the run, so only these columns (docs/performance.md, "A year of history").
 */
export async function sliceOutcomes(connection: DuckDBConnection, runId: string): Promise<SliceOutcome[]> {
  const rows = await readRows(
    connection,
    `SELECT brand_id, stream, CAST("day" AS VARCHAR) AS "day",
            CASE WHEN last_attempt_run_id = $1 THEN coalesce(last_attempt_status, status) ELSE status END AS status
     FROM _sync_state WHERE run_id = $1 OR last_attempt_run_id = $1`,
    [runId],
  );
  return rows.map((row) => ({
    brandId: Number(row.brand_id),
    stream: row.stream as string,
    day: row.day as string | null,
    status: row.status as SliceStatus,
  }));
}

export async function sliceStates(
  connection: DuckDBConnection,
  filter: SliceStateFilter = {},
): Promise<SliceStateRow[]> {
  const where: string[] = [];
  const params: DuckDBValue[] = [];
  const bind = (value: DuckDBValue): string => {
    params.push(value);
    return `$${params.length}`;
  };
  // Read per run, a slice's status is that of the run's attempt; otherwise that of the rows it holds.
  let status = 'status';
  if (filter.runId !== undefined) {
    const run = bind(filter.runId);
    where.push(`(run_id = ${run} OR last_attempt_run_id = ${run})`);
    status = `CASE WHEN last_attempt_run_id = ${run} THEN coalesce(last_attempt_status, status) ELSE status END`;
  }
  if (filter.brandId !== undefined) where.push(`brand_id = CAST(${bind(filter.brandId)} AS BIGINT)`);
  if (filter.stream !== undefined) where.push(`stream = ${bind(filter.stream)}`);
  if (filter.status !== undefined) {
    const statuses = Array.isArray(filter.status) ? filter.status : [filter.status];
    where.push(statuses.length ? `${status} IN (${statuses.map((s) => bind(s)).join(', ')})` : 'FALSE');
  }
  if (filter.fromDay !== undefined) where.push(`"day" >= CAST(${bind(filter.fromDay)} AS DATE)`);
  const rows = await readRows(
    connection,
    `SELECT brand_id, stream, slice_key, CAST("day" AS VARCHAR) AS "day", ${status} AS status, "rows", total_rows, attempts, requests,
            last_error, error_code, request_id, run_id, completed_at, updated_at,
            coalesce(last_attempt_status, status) AS last_attempt_status, coalesce(last_attempt_at, updated_at) AS last_attempt_at,
            last_attempt_run_id, last_attempt_error, last_attempt_error_code, last_attempt_request_id, last_attempt_attempts
     FROM _sync_state ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY brand_id, stream, "day" NULLS FIRST, slice_key`,
    params,
  );
  return rows.map((row) => ({
    brandId: row.brand_id as number,
    stream: row.stream as string,
    sliceKey: row.slice_key as string,
    day: row.day as string | null,
    status: row.status as SliceStatus,
    rows: row.rows as number,
    totalRows: row.total_rows as number | null,
    attempts: row.attempts as number,
    requests: row.requests as number,
    lastError: row.last_error as string | null,
    errorCode: row.error_code as string | null,
    requestId: row.request_id as string | null,
    runId: row.run_id as string | null,
    completedAt: row.completed_at as string | null,
    updatedAt: row.updated_at as string,
    lastAttempt: {
      status: row.last_attempt_status as SliceStatus,
      at: row.last_attempt_at as string | null,
      runId: row.last_attempt_run_id as string | null,
      error: row.last_attempt_error as string | null,
      errorCode: row.last_attempt_error_code as string | null,
      requestId: row.last_attempt_request_id as string | null,
      attempts: row.last_attempt_attempts as number | null,
    },
  }));
}

export async function recentRuns(connection: DuckDBConnection, limit = 20): Promise<RunRow[]> {
  const rows = await readRows(
    connection,
    `SELECT run_id, kind, brands, streams, CAST(window_start AS VARCHAR) AS window_start, CAST(window_end AS VARCHAR) AS window_end,
            started_at, finished_at, status, slices, requests, "rows", rejects, errors, retries, rate_limited
     FROM _sync_runs ORDER BY started_at DESC, run_id LIMIT CAST($1 AS BIGINT)`,
    [limit],
  );
  return rows.map((row) => ({
    runId: row.run_id as string,
    kind: row.kind as RunKind,
    brands: (row.brands as number[] | null) ?? [],
    streams: (row.streams as string[] | null) ?? [],
    windowStart: row.window_start as string | null,
    windowEnd: row.window_end as string | null,
    startedAt: row.started_at as string,
    finishedAt: row.finished_at as string | null,
    status: row.status as RunLogStatus,
    slices: row.slices as number,
    requests: row.requests as number,
    rows: row.rows as number,
    rejects: row.rejects as number,
    errors: row.errors as number,
    retries: row.retries as number,
    rateLimited: row.rate_limited as number,
  }));
}
