/**
 * Scenario 4, memory: the peak RSS of the process doing a conversations backfill of 1,000,000 records (100 days x
 * 10,000) and of one of 100,000 (10 days x 10,000), each in a fresh child process (`process.resourceUsage().maxRSS`
 * at its end), with DuckDB held to the config's default budget (`warehouse.memoryLimit` 160MB, 1 thread). Targets:
 * <= 400 MB, and the larger within 1.2 x the smaller — memory must not grow with volume. Measured as bvsync is
 * started (`--max-old-space-size=192 --max-semi-space-size=8` and `MALLOC_ARENA_MAX=2`: the Dockerfile; the targets) and again with node's defaults,
 * under which V8 lets garbage grow the heap to ~230 MB at this allocation rate. The notes give each run's peak V8 heap.
 * Then a backfill of every default stream for many brands over 3 days (100: 17,000 phase-2 slices), as shipped:
 * its phases' jobs and its finalize must not lift the process over the same limit. `BVSYNC_BENCH_MEMORY_BRANDS=30`
 * runs fewer brands, `BVSYNC_BENCH_MEMORY_DAYS=7` more days; `BVSYNC_BENCH_MEMORY=brands` runs that backfill alone. The year: `npm run bench -- year`.
 */
import {
  daysBack,
  runInChild,
  SHIPPED_NODE_OPTIONS as SHIPPED,
  withShippedEnvironment,
  withSimulator,
} from './harness.js';
import { conversationBackfill, type BackfillFigure } from './throughput.js';
import type { BenchResult } from './run.js';

const LIMIT_MB = 400;

function figures(label: string, small: BackfillFigure, large: BackfillFigure, withTargets: boolean): BenchResult[] {
  const note = (figure: BackfillFigure) =>
    `${figure.records.toLocaleString('en-US')} records in ${figure.seconds.toFixed(1)} s; V8 heap peak ${Math.round(figure.report.peakHeapMb)} MB`;
  const growth = large.peakRssMb / small.peakRssMb;
  const rows: BenchResult[] = [
    {
      scenario: 'memory',
      metric: `peak RSS, 1,000,000 conversations${label}`,
      value: large.peakRssMb,
      unit: 'MB',
      reference: LIMIT_MB,
      target: `<= ${LIMIT_MB} MB`,
      met: large.peakRssMb <= LIMIT_MB,
      note: note(large),
    },
    {
      scenario: 'memory',
      metric: `peak RSS, 100,000 conversations${label}`,
      value: small.peakRssMb,
      unit: 'MB',
      reference: LIMIT_MB,
      target: `<= ${LIMIT_MB} MB`,
      met: small.peakRssMb <= LIMIT_MB,
      note: note(small),
    },
    {
      scenario: 'memory',
      metric: `peak RSS growth, 1,000,000 vs 100,000${label}`,
      value: large.peakRssMb,
      unit: 'MB',
      reference: small.peakRssMb,
      target: '<= 1.2 x smaller',
      met: growth <= 1.2,
      note: `${growth.toFixed(2)} x`,
    },
  ];
  // Node's defaults are shown for comparison: bvsync is not started with them.
  return withTargets ? rows : rows.map(({ target: _target, met: _met, ...row }) => row);
}

const BRANDS = Number(process.env.BVSYNC_BENCH_MEMORY_BRANDS ?? 100);
/** The days of that backfill: `BVSYNC_BENCH_MEMORY_DAYS=7` is writer-keeps-up's window, as shipped. */
const DAYS = Number(process.env.BVSYNC_BENCH_MEMORY_DAYS ?? 3);

/** Every default stream of BRANDS brands over DAYS days, as shipped, into an empty file. */
async function brandsBackfill(): Promise<BenchResult> {
  const report = await withSimulator(
    `bench-memory-brands-${BRANDS}`,
    { brands: BRANDS, days: DAYS, scale: 30 },
    (context) =>
      withShippedEnvironment(() =>
        runInChild({
          kind: 'backfill',
          url: context.sim.url,
          apiKey: context.sim.apiKey,
          db: context.db,
          redisPrefix: context.redisPrefix,
          streams: [],
          brands: BRANDS,
          from: daysBack(DAYS - 1),
          to: daysBack(0),
          nodeOptions: SHIPPED,
          timeoutMs: 3_600_000,
        }),
      ),
  );
  if (report.status !== 'complete') throw new Error(`the ${BRANDS}-brand backfill ended ${report.status}`);
  return {
    scenario: 'memory',
    metric: `peak RSS, backfill of every stream, ${BRANDS} brands x ${DAYS} days (as shipped)`,
    value: report.peakRssMb,
    unit: 'MB',
    reference: LIMIT_MB,
    target: `<= ${LIMIT_MB} MB`,
    met: report.peakRssMb <= LIMIT_MB,
    note: `${report.planned.toLocaleString('en-US')} slices, ${report.requests.toLocaleString('en-US')} requests in ${report.seconds.toFixed(1)} s; V8 heap peak ${Math.round(report.peakHeapMb)} MB`,
  };
}

export async function run(): Promise<BenchResult[]> {
  if (process.env.BVSYNC_BENCH_MEMORY === 'brands') return [await brandsBackfill()];
  const [small, large] = await withShippedEnvironment(async () => [
    await conversationBackfill(10, SHIPPED),
    await conversationBackfill(100, SHIPPED),
  ]);
  const smallDefault = await conversationBackfill(10);
  const largeDefault = await conversationBackfill(100);
  return [
    ...figures(` (${SHIPPED}, MALLOC_ARENA_MAX=2, as shipped)`, small, large, true),
    ...figures(" (node's default heap)", smallDefault, largeDefault, false),
    await brandsBackfill(),
  ];
}
