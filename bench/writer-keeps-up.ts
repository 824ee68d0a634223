/**
 * Scenario writer-keeps-up: 7-day backfills of every default stream, 50 ms of API latency and no rate limit, of 3
 * brands and of BVSYNC_BENCH_WRITER_BRANDS (default 100) in one run, each into an empty file. Targets: the time
 * commits spend in Warehouse calls per slice at the larger size within 1.2 x the smaller's (bookkeeping does not grow
 * with the file), and the writer's last commit within 1.3 x the time of the last fetch. Both are wall times: node 20
 * cannot tell one thread's CPU, and DuckDB's threads and the fetches share the box's cores.
 */
import { daysBack, runInChild, withSimulator, type ChildRunReport, type WriterReport } from './harness.js';
import type { BenchResult } from './run.js';

const DAYS = 7;
const SMALL_BRANDS = 3;
const SCALE = 30;
const PER_SLICE_MOST = 1.2;
const FINISH_MOST = 1.3;

async function backfill(brands: number): Promise<ChildRunReport & { writer: WriterReport }> {
  return withSimulator(
    `writer-keeps-up-${brands}`,
    { brands, days: DAYS, scale: SCALE, latencyMs: 50 },
    async (context) => {
      const report = await runInChild({
        kind: 'backfill',
        url: context.sim.url,
        apiKey: context.sim.apiKey,
        db: context.db,
        redisPrefix: context.redisPrefix,
        streams: [],
        brands,
        from: daysBack(DAYS - 1),
        to: daysBack(0),
        measureWriter: true,
        timeoutMs: 3_600_000,
      });
      if (report.status !== 'complete' || !report.writer)
        throw new Error(`the backfill of ${brands} brands ended ${report.status}`);
      return report as ChildRunReport & { writer: WriterReport };
    },
  );
}

function perSliceMs(report: { writer: WriterReport }): number {
  return (report.writer.warehouseSeconds * 1000) / Math.max(1, report.writer.slicesCommitted);
}

function describe(report: ChildRunReport & { writer: WriterReport }): string {
  const { writer } = report;
  return (
    `${report.planned} slices, last fetch ${writer.lastFetchSeconds.toFixed(1)} s, last commit ${writer.lastCommitSeconds.toFixed(1)} s, ` +
    `writer busy ${writer.busySeconds.toFixed(1)} s (in the warehouse ${writer.warehouseSeconds.toFixed(1)} s), run ${report.seconds.toFixed(1)} s, ` +
    `CPU ${report.cpuSeconds.toFixed(1)} s (${((report.cpuSeconds * 1000) / Math.max(1, report.planned)).toFixed(1)} ms a slice, fetching included)`
  );
}

export async function run(): Promise<BenchResult[]> {
  const largeBrands = Number(process.env.BVSYNC_BENCH_WRITER_BRANDS ?? 100);
  const small = await backfill(SMALL_BRANDS);
  const large = await backfill(largeBrands);
  const results: BenchResult[] = [];
  results.push({
    scenario: 'writer-keeps-up',
    metric: `writer's warehouse time per slice, ${largeBrands} vs ${SMALL_BRANDS} brands x ${DAYS} days`,
    value: perSliceMs(large),
    unit: 'ms',
    reference: perSliceMs(small),
    target: `<= ${PER_SLICE_MOST} x ${SMALL_BRANDS} brands`,
    met: perSliceMs(large) <= PER_SLICE_MOST * perSliceMs(small),
    note: `${SMALL_BRANDS} brands: ${describe(small)}; ${largeBrands} brands: ${describe(large)}`,
  });
  for (const [brands, report] of [
    [SMALL_BRANDS, small],
    [largeBrands, large],
  ] as const) {
    results.push({
      scenario: 'writer-keeps-up',
      metric: `writer's last commit vs last fetch, ${brands} brands x ${DAYS} days`,
      value: report.writer.lastCommitSeconds,
      unit: 's',
      reference: report.writer.lastFetchSeconds,
      target: `<= ${FINISH_MOST} x last fetch`,
      met: report.writer.lastCommitSeconds <= FINISH_MOST * report.writer.lastFetchSeconds,
      note: describe(report),
    });
  }
  return results;
}
