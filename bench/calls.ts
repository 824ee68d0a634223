/**
 * Scenario 3, calls per row: a 30-day backfill of one brand at the simulator's default scale (100 answers a day),
 * every stream, counted by the simulator, against the fewest requests the plan can be served with — one per planned
 * slice plus the extra pages its `total_rows` requires (pages of 100, of 50 for product rankings; single-shot reports
 * one call). Then two syncs
 * with nothing new: a backfill never moves the incremental cursors, so the first sync plans its initial days again
 * and sets them; the second plans only the lookback days and the full-refresh streams. For each sync the prediction
 * is made BEFORE it runs, from the planner itself (`planPhase`, with the cursors and dimensions in the file) and the
 * pages each slice needed last time. Targets: backfill requests / minimum <= 1.05; each sync <= its prediction.
 */
import { DIMENSION_NAMES, readDimensions } from '../src/streams/dimensions.js';
import { STREAMS, selectStreams } from '../src/streams/registry.js';
import { openReadOnly } from '../src/warehouse/publish/published-database.js';
import { readRows } from '../src/warehouse/read-rows.js';
import { ECHOED_ENGINES_SQL } from '../src/warehouse/provenance.js';
import { completeOnceOver } from '../src/warehouse/state/complete-once-over.js';
import { LISTED_PAGES_SQL } from '../src/warehouse/state/listed-pages.js';
import { completeThrough, firstIncrementalDay, planPhase, type PlannedSlice } from '../src/engine/plan/plan.js';
import { daysBack, runInChild, TODAY, withSimulator, type ChildRunSpec } from './harness.js';
import type { BenchResult } from './run.js';
import { parseConfig } from '../src/configuration.js';

const DAYS = 30;
const BRAND = 1;

/**
 * Reports answered in one call whatever their `total_rows` says (it counts the rows of the report, not pages):
 * citations (a time series), visibility and competitors (read through `onePage`).
 */
const ONE_CALL_STREAMS = ['citations', 'visibility', 'competitors'];

function pageSizeOf(stream: string): number {
  return stream === 'product_ranking' ? 50 : 100;
}

/**
 * The requests a slice of `totalRows` needs: one a page, and a second for a set of exactly one full page, which an API
 * counting the page instead of the set would also report (src/api/paginate.ts, `countsOnlyThePage`).
 */
function pagesFor(stream: string, totalRows: number | null): number {
  if (totalRows === null || ONE_CALL_STREAMS.includes(stream)) return 1;
  return totalRows === pageSizeOf(stream) ? 2 : Math.max(1, Math.ceil(totalRows / pageSizeOf(stream)));
}

async function query(db: string, sql: string, params: (string | number | null)[] = []) {
  const file = await openReadOnly(db);
  try {
    return await readRows(file.connection, sql, params);
  } finally {
    file.close();
  }
}

/** The requests an incremental sync needs, by the planner, before it runs: the pages each planned slice needed last time. */
async function predictSync(db: string): Promise<{ slices: number; pages: Map<string, number> }> {
  const sync = parseConfig({}).sync;
  const cursors = new Map<string, string>();
  for (const row of await query(db, 'SELECT brand_id, stream, through_day::VARCHAR AS day FROM _sync_cursors'))
    cursors.set(`${String(row.brand_id)}|${String(row.stream)}`, String(row.day));
  // A stream with no cursor starts after the complete days slices already loaded (the backfill's), as the planner does.
  const completeDays = await query(
    db,
    `SELECT stream, "day"::VARCHAR AS day, bool_and(${completeOnceOver('"day" + 1')}) AS complete FROM _sync_state WHERE brand_id = $1 AND "day" IS NOT NULL GROUP BY ALL`,
    [BRAND],
  );
  for (const stream of new Set(completeDays.map((row) => String(row.stream)))) {
    const key = `${BRAND}|${stream}`;
    if (cursors.has(key)) continue;
    const days = completeDays
      .filter((row) => row.stream === stream)
      .map((row) => ({ day: String(row.day), complete: row.complete === true }));
    const through = completeThrough(firstIncrementalDay(TODAY, sync), days);
    if (through) cursors.set(key, through);
  }
  // Later phases fan out over what earlier ones loaded, read back as the load processor does.
  const source = {
    brandColumn: async (table: string, column: string, brand: number) =>
      (await query(db, `SELECT "${column}" AS value FROM "${table}" WHERE brand_id = $1`, [brand])).map(
        (row) => row.value,
      ),
    echoedEngines: async (stream: string, brand: number) =>
      (await query(db, ECHOED_ENGINES_SQL, [stream]))
        .filter((row) => Number(row.brand_id) === brand)
        .map((row) => String(row.engine)),
    listedPages: async (brand: number) =>
      (await query(db, LISTED_PAGES_SQL, [brand, null])).map((row) => String(row.url)),
  };
  const dimensions = await readDimensions(STREAMS.values(), new Set(DIMENSION_NAMES), source, BRAND, sync.domains);
  const pagesBefore = new Map<string, number>();
  for (const row of await query(db, 'SELECT stream, slice_key, total_rows FROM _sync_state WHERE brand_id = $1', [
    BRAND,
  ])) {
    pagesBefore.set(
      `${String(row.stream)}|${String(row.slice_key)}`,
      pagesFor(String(row.stream), row.total_rows === null ? null : Number(row.total_rows)),
    );
  }
  const slices: PlannedSlice[] = [];
  for (const phase of [1, 2]) {
    slices.push(
      ...planPhase({
        mode: { kind: 'incremental', today: TODAY },
        brands: [BRAND],
        streams: selectStreams(undefined),
        phase,
        sync,
        cursors,
        dimensions: () => dimensions,
      }).slices,
    );
  }
  const pages = new Map(
    slices.map((slice) => [`${slice.stream}|${slice.key}`, pagesBefore.get(`${slice.stream}|${slice.key}`) ?? 1]),
  );
  return { slices: slices.length, pages };
}

/**
 * The pages today's slices needed beyond the prediction: the simulator's clock is the real time of day, so today's
 * answers keep arriving between the backfill and the sync, and a day's page count may grow by one. Counted from the
 * total the sync itself read, for today's slices only: any other extra request is still one too many.
 */
async function todaysGrowth(db: string, runId: string, predicted: ReadonlyMap<string, number>): Promise<number> {
  const read = await query(
    db,
    `SELECT stream, slice_key, total_rows FROM _sync_state WHERE run_id = $1 AND "day" = CAST($2 AS DATE)`,
    [runId, TODAY],
  );
  return read.reduce((sum, row) => {
    const key = `${String(row.stream)}|${String(row.slice_key)}`;
    const needed = pagesFor(String(row.stream), row.total_rows === null ? null : Number(row.total_rows));
    return sum + Math.max(0, needed - (predicted.get(key) ?? needed));
  }, 0);
}

export async function run(): Promise<BenchResult[]> {
  return withSimulator('bench-calls', { days: DAYS + 5 }, async (context) => {
    const { sim, db } = context;
    const spec: ChildRunSpec = {
      kind: 'backfill',
      url: sim.url,
      apiKey: sim.apiKey,
      db,
      redisPrefix: context.redisPrefix,
      streams: [],
      timeoutMs: 300_000,
    };
    const backfill = await runInChild({ ...spec, from: daysBack(DAYS - 1), to: daysBack(0) });
    const backfillRequests = (await sim.requests()).length;
    const states = await query(db, 'SELECT stream, total_rows FROM _sync_state WHERE run_id = $1', [backfill.runId]);
    const minimum = {
      slices: states.length,
      requests: states.reduce(
        (sum, row) => sum + pagesFor(String(row.stream), row.total_rows === null ? null : Number(row.total_rows)),
        0,
      ),
    };
    const results: BenchResult[] = [];
    const needed = minimum.requests;
    const ratio = backfillRequests / needed;
    results.push({
      scenario: 'calls',
      metric: `requests of a ${DAYS}-day backfill, every stream, vs the plan's minimum`,
      value: backfillRequests,
      unit: 'requests',
      reference: needed,
      target: '<= 1.05 x minimum',
      met: ratio <= 1.05,
      note: `${minimum.slices} slices, run ${backfill.status}`,
    });
    for (const which of [
      'first sync after it (starts after the backfill: lookback + full refresh)',
      'second sync, nothing new (lookback + full refresh)',
    ]) {
      const predicted = await predictSync(db);
      await sim.clearRequests();
      const sync = await runInChild({ ...spec, kind: 'sync' });
      const made = (await sim.requests()).length;
      const growth = await todaysGrowth(db, sync.runId, predicted.pages);
      const requests = [...predicted.pages.values()].reduce((sum, pages) => sum + pages, 0) + growth;
      results.push({
        scenario: 'calls',
        metric: `requests of the ${which}`,
        value: made,
        unit: 'requests',
        reference: requests,
        target: '<= predicted',
        met: made <= requests,
        note: `predicted from ${predicted.slices} planned slices${growth ? `, ${growth} page(s) more of today's answers, which kept arriving` : ''}; run ${sync.status}`,
      });
    }
    return results;
  });
}
