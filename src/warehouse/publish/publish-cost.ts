import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * What each way of publishing last cost, kept in the working file, so a publish takes the cheaper (docs/performance.md,
 * "Publishing"): scans and rows copied for an update, bytes for a full copy. test/warehouse/publish-cost.int.test.ts.
 */
export const PUBLISH_COSTS_TABLE = '_publish_costs';

/** Created when the writer opens the file, as the journal is: publishing's own bookkeeping, never in a copy. */
export async function ensurePublishCosts(connection: DuckDBConnection): Promise<void> {
  await connection.run(
    `CREATE TABLE IF NOT EXISTS ${PUBLISH_COSTS_TABLE} (way VARCHAR PRIMARY KEY, ms_per_unit DOUBLE NOT NULL, measured_at TIMESTAMPTZ NOT NULL)`,
  );
}

/**
 * How each way is priced. Bringing the copy up to date repeats the scans of its scopes (a DELETE in the copy, an
 * INSERT from the working file) and writes its rows; a full copy copies bytes.
 */
export interface PublishRates {
  /** The incremental way's time per millisecond of the probe's scans (publish-changes.ts, probeChanges). */
  perScanMs: number;
  /** Milliseconds per row copied into the previous copy. */
  msPerRow: number;
  /** Milliseconds per MB of a whole file copied (also the clone's, when none was made during the run). */
  msPerMb: number;
}

/** Until a publish of each way has been measured on this file; docs/performance.md, "Publishing", states them. */
export const DEFAULT_PUBLISH_RATES: PublishRates = { perScanMs: 4, msPerRow: 0.005, msPerMb: 6 };

/** What a full copy costs beyond its bytes: two checkpoints, the views made again, the marker. */
export const FULL_COPY_FIXED_MS = 300;

/**
 * Measures below these are not kept: a publish of little work is mostly fixed costs, and its rate would price a
 * large one wrongly.
 */
const MIN_MEASURED_SCAN_MS = 50;
const MIN_MEASURED_MB = 16;

export interface PublishEstimate {
  /** Milliseconds to bring the previous copy up to date, its clone included when it is not made yet. */
  incrementalMs: number;
  /** Milliseconds to copy the whole working file. */
  fullMs: number;
  /** Rows the incremental way would copy. */
  rows: number;
  /** Milliseconds the probe's scans took. */
  scanMs: number;
}

export interface EstimateInput extends Pick<PublishEstimate, 'rows' | 'scanMs'> {
  /** Size of the working file (what a full copy copies), in MB. */
  workingMb: number;
  /** Size of the published file, cloned first unless a clone was prepared during the run; 0 when one was. */
  cloneMb: number;
  rates: PublishRates;
}

/** Both ways priced by the rates measured; the incremental way is taken unless the full copy is cheaper. */
export function estimatePublish({ rows, scanMs, workingMb, cloneMb, rates }: EstimateInput): PublishEstimate {
  return {
    incrementalMs: scanMs * rates.perScanMs + rows * rates.msPerRow + cloneMb * rates.msPerMb,
    fullMs: FULL_COPY_FIXED_MS + workingMb * rates.msPerMb,
    rows,
    scanMs,
  };
}

const WAYS = { incremental: 'perScanMs', row: 'msPerRow', full: 'msPerMb' } as const;

/** The rates this file's earlier publishes measured, each way's default until one did. */
export async function readPublishRates(connection: DuckDBConnection): Promise<PublishRates> {
  const reader = await connection.runAndReadAll(`SELECT way, ms_per_unit FROM main.${PUBLISH_COSTS_TABLE}`);
  const rates = { ...DEFAULT_PUBLISH_RATES };
  for (const [way, rate] of reader.getRowsJS() as Array<[string, number]>) {
    if (!(way in WAYS) || !(Number.isFinite(rate) && rate >= 0)) continue;
    rates[WAYS[way as keyof typeof WAYS]] = rate;
  }
  return rates;
}

/**
 * Keeps the mean of the kept rate and the measured one, so one publish slowed by a busy disk moves the choice half-way:
 * an update per probe-scan ms (its rows at the row rate), a full copy per MB. Measures of too little work are dropped.
 */
export async function recordPublishRate(
  connection: DuckDBConnection,
  measured: { way: 'incremental'; ms: number; estimate: PublishEstimate } | { way: 'full'; ms: number; mb: number },
): Promise<void> {
  let rate: number;
  if (measured.way === 'incremental') {
    if (measured.estimate.scanMs < MIN_MEASURED_SCAN_MS) return;
    const rates = await readPublishRates(connection);
    rate = Math.max(measured.ms - measured.estimate.rows * rates.msPerRow, 0) / measured.estimate.scanMs;
  } else {
    if (measured.mb < MIN_MEASURED_MB) return;
    rate = Math.max(measured.ms - FULL_COPY_FIXED_MS, 0) / measured.mb;
  }
  if (!(Number.isFinite(rate) && rate > 0)) return;
  await connection.run(
    `INSERT INTO main.${PUBLISH_COSTS_TABLE} (way, ms_per_unit, measured_at) VALUES ($1, $2, current_timestamp)
     ON CONFLICT (way) DO UPDATE SET ms_per_unit = (${PUBLISH_COSTS_TABLE}.ms_per_unit + excluded.ms_per_unit) / 2, measured_at = excluded.measured_at`,
    [measured.way, rate],
  );
}
