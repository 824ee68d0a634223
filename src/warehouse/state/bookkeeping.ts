import type { DuckDBConnection, DuckDBResultReader, DuckDBValue } from '@duckdb/node-api';
import type { SliceStatus } from '../../vocabulary.js';
import { completeOnceOver } from './complete-once-over.js';
import { completeThroughDay } from './complete-through.js';
import type { PlainRow, RowReader } from '../read-rows.js';
import { sliceId } from '../../slice-ids.js';

/**
 * The questions bvsync asks of its bookkeeping tables (`_sync_state`, `_sync_cursors`), each under a name, through
 * whatever connection the caller holds: the writer's `Warehouse` or a read-only published copy.
 */

export interface NewestCompleteDay {
  brand: number;
  stream: string;
  /** `YYYY-MM-DD`, or null when no slice of the stream holds a complete past day (src/warehouse/state/complete-through.ts). */
  newestCompleteDay: string | null;
}

/** A slice's stored state as a commit needs it: its status, the run that loaded it, and the run of its latest attempt. */
export interface StoredSliceState {
  status: SliceStatus;
  /** Distinct records the slice holds. */
  rows: number;
  runId: string | null;
  attemptRunId: string | null;
}

// Today (UTC) is left out: its slice reads complete once fetched, yet the API adds answers to the day until it ends.
const NEWEST_COMPLETE_PAST_DAY_SQL = `
SELECT brand_id AS brand, stream, max(${completeThroughDay('$1::DATE')})::VARCHAR AS newest
FROM _sync_state GROUP BY ALL ORDER BY ALL`;

/** Freshness per brand and stream as of `today`: the newest day complete before it (today itself is partial). */
export async function newestCompletePastDays(read: RowReader, today: string): Promise<NewestCompleteDay[]> {
  const rows = await read(NEWEST_COMPLETE_PAST_DAY_SQL, [today]);
  return rows.map((row) => ({
    brand: Number(row.brand),
    stream: String(row.stream),
    newestCompleteDay: row.newest === null ? null : String(row.newest),
  }));
}

/**
 * Each day between `from` and `to` that has slices of the stream, and whether all of them are complete and were read
 * once the day was over (UTC): a day read while it was today may still gain answers.
 */
export async function completeDays(
  read: RowReader,
  brandId: number,
  stream: string,
  from: string,
  to: string,
): Promise<Array<{ day: string; complete: boolean }>> {
  const rows = await read(
    `SELECT "day"::VARCHAR AS day, bool_and(${completeOnceOver('"day" + 1')}) AS complete FROM _sync_state
     WHERE brand_id = $1 AND stream = $2 AND "day" BETWEEN $3::DATE AND $4::DATE GROUP BY "day"`,
    [brandId, stream, from, to],
  );
  return rows.map((row) => ({ day: String(row.day), complete: row.complete === true }));
}

/** A slice as `_sync_state` keys it. */
export interface SliceKey {
  brandId: number;
  stream: string;
  sliceKey: string;
}

/** The `storedSliceStates` key of a slice. */
export function sliceKeyText(slice: SliceKey): string {
  return sliceId(slice.brandId, slice.stream, slice.sliceKey);
}

/**
 * The stored states of several slices in one join, keyed by `sliceKeyText`; a slice never loaded has none. DuckDB
 * scans `_sync_state` for a composite key whatever the filter, so a batch of commits asks once.
 */
export async function storedSliceStates(
  read: RowReader,
  slices: readonly SliceKey[],
): Promise<Map<string, StoredSliceState>> {
  const states = new Map<string, StoredSliceState>();
  if (!slices.length) return states;
  const params: DuckDBValue[] = [];
  const rows = slices.map((slice) => {
    params.push(slice.brandId, slice.stream, slice.sliceKey);
    return `(CAST($${params.length - 2} AS BIGINT), CAST($${params.length - 1} AS VARCHAR), CAST($${params.length} AS VARCHAR))`;
  });
  const found = await read(
    `SELECT s.brand_id, s.stream, s.slice_key, s.status, s."rows", s.run_id, s.last_attempt_run_id
       FROM _sync_state s JOIN (VALUES ${rows.join(', ')}) AS asked(brand_id, stream, slice_key) USING (brand_id, stream, slice_key)`,
    params,
  );
  for (const row of found) {
    states.set(sliceId(Number(row.brand_id), String(row.stream), String(row.slice_key)), {
      status: row.status as SliceStatus,
      rows: Number(row.rows ?? 0),
      runId: row.run_id as string | null,
      attemptRunId: row.last_attempt_run_id as string | null,
    });
  }
  return states;
}

/**
 * The requests of each slice's last read in a window, by brand, stream and day (null for window and snapshot slices,
 * with `at` their newest update): what re-reading a day costs `sync.heal`.
 */
export function requestsByDay(read: RowReader, window: { from: string; to: string }): Promise<PlainRow[]> {
  return read(
    `SELECT brand_id, stream, "day"::VARCHAR AS day, run_id, max(updated_at)::VARCHAR AS at, sum(requests)::INTEGER AS requests FROM _sync_state
     WHERE "day" BETWEEN $1::DATE AND $2::DATE OR "day" IS NULL GROUP BY ALL`,
    [window.from, window.to],
  );
}

/** The streams the warehouse has any slice of for the brand. */
export async function syncedStreams(read: RowReader, brandId: number): Promise<Set<string>> {
  const rows = await read('SELECT DISTINCT stream FROM _sync_state WHERE brand_id = $1', [brandId]);
  return new Set(rows.map((row) => String(row.stream)));
}

/** The brands the file holds slices of, in id order. */
export async function syncedBrands(read: RowReader): Promise<number[]> {
  return (await read('SELECT DISTINCT brand_id FROM _sync_state ORDER BY brand_id')).map((row) => Number(row.brand_id));
}

/** The run that finished last, or undefined before the first one ends. */
export async function lastFinishedRun(
  read: RowReader,
): Promise<{ runId: string; kind: string; status: string; finishedAt: string | null } | undefined> {
  const [row] = await read(
    'SELECT run_id, kind, status, finished_at FROM _sync_runs WHERE finished_at IS NOT NULL ORDER BY finished_at DESC LIMIT 1',
  );
  if (!row) return undefined;
  return {
    runId: String(row.run_id),
    kind: String(row.kind),
    status: String(row.status),
    finishedAt: (row.finished_at as string | null) ?? null,
  };
}

// The newest day each brand and stream has complete before today, how old it is, and what is left to fix.
const FRESHNESS_TABLE_SQL = `
SELECT s.brand_id AS brand, s.stream,
       max(s.complete_through)::VARCHAR AS newest_complete_day,
       ($1::DATE - max(s.complete_through))::INTEGER AS age_days,
       CASE WHEN bool_or(s.day >= $1::DATE) THEN 'partial' ELSE '' END AS today,
       c.through_day::VARCHAR AS incremental_through,
       count(*) FILTER (WHERE s.status = 'failed')::INTEGER AS failed,
       count(*) FILTER (WHERE s.status = 'incomplete')::INTEGER AS incomplete,
       coalesce(any_value(r.rejected), 0)::INTEGER AS rejected,
       max(s.updated_at)::VARCHAR AS last_loaded
FROM (SELECT *, ${completeThroughDay('$1::DATE')} AS complete_through FROM _sync_state) s
LEFT JOIN _sync_cursors c USING (brand_id, stream)
-- Records set aside and not loaded, as the slices' latest reads left them: a complete slice may hold fewer records
-- than the API has when some failed validation, and this says so beside its freshness.
LEFT JOIN (SELECT brand_id, stream, count(*) AS rejected FROM _rejected_records GROUP BY ALL) r USING (brand_id, stream)
GROUP BY ALL ORDER BY brand, stream`;

/** Freshness per brand and stream as `bvsync status` shows it, as a result the CLI draws like `bvsync sql` does. */
export function freshnessTable(connection: DuckDBConnection, today: string): Promise<DuckDBResultReader> {
  return connection.runAndReadAll(FRESHNESS_TABLE_SQL, [today]);
}

/** The most slices `status` lists as not complete; it says how many there are in all. */
export const SLICES_SHOWN = 50;

// Failures with the API's request id, for its support. A complete slice whose latest attempt failed is listed too:
// `status` says what the rows are, `last_attempt` what the latest fetch came to.
const SLICES_NOT_COMPLETE_SQL = `
SELECT brand_id AS brand, stream, slice_key AS slice, status, coalesce(last_attempt_status, status) AS last_attempt,
       coalesce(last_attempt_error_code, error_code) AS error_code, coalesce(last_attempt_request_id, request_id) AS request_id,
       left(coalesce(last_attempt_error, last_error), 120) AS error, coalesce(last_attempt_run_id, run_id) AS run_id
FROM _sync_state WHERE status <> 'complete' OR coalesce(last_attempt_status, status) <> 'complete'
ORDER BY coalesce(last_attempt_status, status) = 'failed' DESC, coalesce(last_attempt_at, updated_at) DESC LIMIT ${SLICES_SHOWN}`;

// A file published by a bvsync older than migration 006 (upgraded, not yet synced again) has no attempt columns.
const SLICES_NOT_COMPLETE_BEFORE_006_SQL = `
SELECT brand_id AS brand, stream, slice_key AS slice, status, error_code, request_id, left(last_error, 120) AS error, run_id
FROM _sync_state WHERE status <> 'complete' ORDER BY status = 'failed' DESC, updated_at DESC LIMIT ${SLICES_SHOWN}`;

/** How many slices of one brand's stream are not complete. */
export interface SlicesNotCompleteCount {
  brand: number;
  stream: string;
  slices: number;
}

/**
 * Up to SLICES_SHOWN slices not complete (or whose latest attempt was not), failed ones first, then the latest, with
 * the API's error code and request id; and how many there are in all and per brand's stream, so a cut list says so.
 */
export async function slicesNotCompleteTable(
  connection: DuckDBConnection,
): Promise<{ table: DuckDBResultReader; total: number; counts: SlicesNotCompleteCount[] }> {
  const found = await connection.runAndReadAll(
    "SELECT 1 FROM duckdb_columns() WHERE table_name = '_sync_state' AND column_name = 'last_attempt_status'",
  );
  const attempts = found.currentRowCount > 0;
  const table = await connection.runAndReadAll(attempts ? SLICES_NOT_COMPLETE_SQL : SLICES_NOT_COMPLETE_BEFORE_006_SQL);
  const counts = await connection.runAndReadAll(
    `SELECT brand_id::BIGINT, stream, count(*)::INTEGER FROM _sync_state
      WHERE status <> 'complete'${attempts ? " OR coalesce(last_attempt_status, status) <> 'complete'" : ''} GROUP BY ALL`,
  );
  const byStream = counts
    .getRows()
    .map(([brand, stream, slices]) => ({ brand: Number(brand), stream: String(stream), slices: Number(slices) }));
  return { table, total: byStream.reduce((sum, each) => sum + each.slices, 0), counts: byStream };
}

export interface DaySliceNotComplete {
  brandId: number;
  stream: string;
  key: string;
  day: string;
}

// $1 a JSON list of brands (empty: every brand), $2 of streams. The slice's rows, not its latest attempt, count, as
// `backfill --skip-complete` counts them; windows and full-refresh lists have no day to name.
const DAY_SLICES_NOT_COMPLETE_SQL = `
SELECT brand_id, stream, slice_key, "day"::VARCHAR AS day FROM _sync_state
WHERE status <> 'complete' AND "day" IS NOT NULL
  AND (json_array_length($1) = 0 OR list_contains(from_json($1, '["BIGINT"]'), brand_id)) AND list_contains(from_json($2, '["VARCHAR"]'), stream)
ORDER BY ALL`;

/** The day slices of these brands (none: of every brand) and streams whose rows are not complete. */
export async function daySlicesNotComplete(
  read: RowReader,
  of: { brands: readonly number[]; streams: readonly string[] },
): Promise<DaySliceNotComplete[]> {
  const rows = await read(DAY_SLICES_NOT_COMPLETE_SQL, [
    JSON.stringify(of.brands.map(Number)),
    JSON.stringify(of.streams),
  ]);
  return rows.map((row) => ({
    brandId: Number(row.brand_id),
    stream: String(row.stream),
    key: String(row.slice_key),
    day: String(row.day),
  }));
}
