/**
 * Scenario year: the daily sync of every default stream for 2 brands on a year of their data, against the same sync
 * on a warehouse of the initial 30 days only. Each warehouse is built by a backfill (its peak RSS is the year
 * backfill's figure); the sync then plans the same slices on both (no cursor yet: the days after the backfill's
 * unbroken complete ones). Each sync runs twice from the same files, the faster counts, the higher RSS. Targets: the
 * year's sync <= 1.3 x the other's; peak RSS <= 400 MB for the backfill and the syncs, as bvsync is started.
 * `BVSYNC_BENCH_YEAR_DAYS=120` builds a shorter history for a quick look.
 */
import { copyFileSync, existsSync, linkSync, rmSync, statSync } from 'node:fs';
import { workingPathFor } from '../src/warehouse/paths.js';
import {
  daysBack,
  runInChild,
  SHIPPED_NODE_OPTIONS,
  withShippedEnvironment,
  withSimulator,
  type ChildRunReport,
  type ChildRunSpec,
} from './harness.js';
import type { BenchResult } from './run.js';

const BRANDS = 2;
const YEAR_DAYS = Number(process.env.BVSYNC_BENCH_YEAR_DAYS ?? 365);
/** The config's `sync.initialDays`: the history a new warehouse syncs. */
const INITIAL_DAYS = 30;
const LIMIT_MB = 400;
const MAX_RATIO = 1.3;
const SYNC_RUNS = 2;

interface Built {
  backfill: ChildRunReport;
  sync: ChildRunReport;
  seconds: number[];
  publishedMb: number;
}

/** Files kept aside after the backfill and put back before each sync; the published file as a second link (growth.ts). */
function keepAside(db: string): { restore(): void } {
  const files = [workingPathFor(db)].flatMap((file) => [file, `${file}.wal`]).filter((file) => existsSync(file));
  for (const file of files) copyFileSync(file, `${file}.aside`);
  linkSync(db, `${db}.aside`);
  return {
    restore() {
      for (const file of [db, workingPathFor(db)]) rmSync(`${file}.wal`, { force: true });
      for (const file of files) copyFileSync(`${file}.aside`, file);
      rmSync(db);
      linkSync(`${db}.aside`, db);
    },
  };
}

async function syncAfter(days: number): Promise<Built> {
  return withSimulator(`bench-year-${days}`, { brands: BRANDS, days: days + 1, scale: 100 }, async (context) => {
    const base: ChildRunSpec = {
      kind: 'backfill',
      url: context.sim.url,
      apiKey: context.sim.apiKey,
      db: context.db,
      redisPrefix: context.redisPrefix,
      streams: [],
      brands: BRANDS,
      nodeOptions: SHIPPED_NODE_OPTIONS,
      timeoutMs: 3_600_000,
    };
    // Through yesterday: today's slices stay for the sync, which plans them on both warehouses.
    const backfill = await withShippedEnvironment(() => runInChild({ ...base, from: daysBack(days), to: daysBack(1) }));
    if (backfill.status !== 'complete') throw new Error(`the ${days}-day backfill ended ${backfill.status}`);
    const aside = keepAside(context.db);
    const reports: ChildRunReport[] = [];
    for (let index = 0; index < SYNC_RUNS; index++) {
      if (index > 0) aside.restore();
      const report = await withShippedEnvironment(() => runInChild({ ...base, kind: 'sync' }));
      if (report.status !== 'complete') throw new Error(`the sync after ${days} days ended ${report.status}`);
      reports.push(report);
    }
    const fastest = reports.reduce((best, report) => (report.seconds < best.seconds ? report : best));
    const sync = { ...fastest, peakRssMb: Math.max(...reports.map((r) => r.peakRssMb)) };
    return { backfill, sync, seconds: reports.map((r) => r.seconds), publishedMb: statSync(context.db).size / 2 ** 20 };
  });
}

export async function run(): Promise<BenchResult[]> {
  const short = await syncAfter(INITIAL_DAYS);
  const year = await syncAfter(YEAR_DAYS);
  const note = (built: Built) =>
    `${built.sync.planned} slices, ${built.sync.requests} requests in ${built.seconds.map((s) => s.toFixed(1)).join(' and ')} s (the faster counts); published file ${Math.round(built.publishedMb)} MB`;
  const ratio = year.sync.seconds / short.sync.seconds;
  const rss = (metric: string, report: ChildRunReport, note: string): BenchResult => ({
    scenario: 'year',
    metric,
    value: report.peakRssMb,
    unit: 'MB',
    reference: LIMIT_MB,
    target: `<= ${LIMIT_MB} MB`,
    met: report.peakRssMb <= LIMIT_MB,
    note,
  });
  return [
    {
      scenario: 'year',
      metric: `daily sync, ${YEAR_DAYS} days of ${BRANDS} brands vs ${INITIAL_DAYS}`,
      value: year.sync.seconds,
      unit: 's',
      reference: short.sync.seconds,
      target: `<= ${MAX_RATIO} x ${INITIAL_DAYS} days`,
      met: ratio <= MAX_RATIO,
      note: `${ratio.toFixed(2)} x; ${note(year)}`,
    },
    rss(
      `peak RSS, backfill of ${YEAR_DAYS} days of ${BRANDS} brands`,
      year.backfill,
      `${year.backfill.planned} slices in ${year.backfill.seconds.toFixed(1)} s`,
    ),
    rss(`peak RSS, daily sync on ${YEAR_DAYS} days`, year.sync, note(year)),
    rss(`peak RSS, daily sync on ${INITIAL_DAYS} days`, short.sync, note(short)),
  ];
}
