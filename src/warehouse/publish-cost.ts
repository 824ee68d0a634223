import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * What each way of publishing cost when it was last measured, kept in the working file, so that a publish takes the
 * cheaper one (docs/performance.md, "Publishing"). Bringing the copy up to date costs by the rows it copies; a full
 * copy costs by the file's bytes. On a year of 2 brands the bookkeeping tables alone made an incremental publish
 * cost ~4 times the copy of the whole file.
 */
export const PUBLISH_COSTS_TABLE = '_publish_costs';

/** Created when the writer opens the file, as the journal is: publishing's own bookkeeping, never in a copy. */
export async function ensurePublishCosts(connection: DuckDBConnection): Promise<void> {
  await connection.run(`CREATE TABLE IF NOT EXISTS ${PUBLISH_COSTS_TABLE} (way VARCHAR PRIMARY KEY, ms_per_unit DOUBLE NOT NULL, measured_at TIMESTAMPTZ NOT NULL)`);
}

/** Milliseconds per row copied into the previous copy, and per MB of a whole file copied. */
export interface PublishRates {
  msPerRow: number;
  msPerMb: number;
}

/**
 * Until a publish of each way has been measured on this file: 50,000 rows/s brought up to date (30,000 rows re-loaded
 * on 5,000,000 conversations in ~0.15-0.6 s on a 2-core box), and 170 MB/s copied whole (a year's 170 MB in ~1.0 s).
 */
export const DEFAULT_PUBLISH_RATES: PublishRates = { msPerRow: 0.02, msPerMb: 6 };

/** What a full copy costs beyond its bytes (checkpoints, views, the marker): it keeps a small file's publish incremental. */
export const FULL_COPY_FIXED_MS = 100;

/**
 * Measures below these are not kept: a publish of a few rows or a small file is mostly fixed costs, and its rate
 * would price a large one wrongly.
 */
const MIN_MEASURED_ROWS = 5_000;
const MIN_MEASURED_MB = 16;

export interface PublishEstimate {
  /** Milliseconds to bring the previous copy up to date, its clone included when it is not made yet. */
  incrementalMs: number;
  /** Milliseconds to copy the whole working file. */
  fullMs: number;
  /** Rows the incremental way would copy. */
  rows: number;
}

export interface EstimateInput {
  rows: number;
  /** Size of the working file (what a full copy copies), in MB. */
  workingMb: number;
  /** Size of the published file, cloned first unless a clone was prepared during the run; 0 when one was. */
  cloneMb: number;
  rates: PublishRates;
}

/** Both ways priced by the rates measured; the incremental way is taken unless the full copy is cheaper. */
export function estimatePublish(input: EstimateInput): PublishEstimate {
  const { rows, workingMb, cloneMb, rates } = input;
  return {
    incrementalMs: rows * rates.msPerRow + cloneMb * rates.msPerMb,
    fullMs: FULL_COPY_FIXED_MS + workingMb * rates.msPerMb,
    rows,
  };
}

/** The rates this file's earlier publishes measured, each way's default until one did. */
export async function readPublishRates(connection: DuckDBConnection): Promise<PublishRates> {
  const reader = await connection.runAndReadAll(`SELECT way, ms_per_unit FROM main.${PUBLISH_COSTS_TABLE}`);
  const rates = { ...DEFAULT_PUBLISH_RATES };
  for (const [way, rate] of reader.getRowsJS() as Array<[string, number]>) {
    if (!(Number.isFinite(rate) && rate > 0)) continue;
    if (way === 'incremental') rates.msPerRow = rate;
    if (way === 'full') rates.msPerMb = rate;
  }
  return rates;
}

/**
 * Keeps what a publish measured: the mean of the rate kept before and this one, so that one publish slowed by a busy
 * disk moves the choice only half-way. Measures of too little work are dropped (MIN_MEASURED_ROWS, MIN_MEASURED_MB).
 */
export async function recordPublishRate(connection: DuckDBConnection, way: 'incremental' | 'full', ms: number, units: number): Promise<void> {
  if (way === 'incremental' ? units < MIN_MEASURED_ROWS : units < MIN_MEASURED_MB) return;
  const measured = (way === 'full' ? Math.max(ms - FULL_COPY_FIXED_MS, 0) : ms) / units;
  if (!(Number.isFinite(measured) && measured > 0)) return;
  await connection.run(
    `INSERT INTO main.${PUBLISH_COSTS_TABLE} (way, ms_per_unit, measured_at) VALUES ($1, $2, current_timestamp)
     ON CONFLICT (way) DO UPDATE SET ms_per_unit = (${PUBLISH_COSTS_TABLE}.ms_per_unit + excluded.ms_per_unit) / 2, measured_at = excluded.measured_at`,
    [way, measured],
  );
}
