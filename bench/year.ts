/**
 * Scenario year: the daily sync of every default stream for 2 brands on a year of their data, against the same sync
 * on a warehouse of the initial 30 days only. Each warehouse is built by a backfill (its peak RSS is the year
 * backfill's figure); the sync then plans the same slices on both (no cursor yet: the days after the backfill's
 * unbroken complete ones). Each sync runs twice from the same files, alternating with the other warehouse's, the
 * faster counts, the higher RSS; the note gives the lower CPU time of each too, steadier on a shared box. Targets: the
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

/** A warehouse built by its backfill, with what a sync of it needs; its simulator stays up until `close`. */
interface History {
  days: number;
  backfill: ChildRunReport;
  syncOnce(): Promise<ChildRunReport>;
  publishedMb(): number;
  close(): Promise<void>;
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

/** Backfills `days` of history through yesterday; today's slices stay for the sync, which plans them on both. */
async function history(days: number): Promise<History> {
  let release: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (release = resolve));
  let ready: (history: History) => void = () => undefined;
  let failed: (error: unknown) => void = () => undefined;
  const built = new Promise<History>((resolve, reject) => {
    ready = resolve;
    failed = reject;
  });
  const held = withSimulator(`bench-year-${days}`, { brands: BRANDS, days: days + 1, scale: 100 }, async (context) => {
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
    const backfill = await withShippedEnvironment(() => runInChild({ ...base, from: daysBack(days), to: daysBack(1) }));
    if (backfill.status !== 'complete') throw new Error(`the ${days}-day backfill ended ${backfill.status}`);
    const aside = keepAside(context.db);
    let runs = 0;
    ready({
      days,
      backfill,
      async syncOnce() {
        if (runs++ > 0) aside.restore();
        const report = await withShippedEnvironment(() => runInChild({ ...base, kind: 'sync' }));
        if (report.status !== 'complete') throw new Error(`the sync after ${days} days ended ${report.status}`);
        return report;
      },
      publishedMb: () => statSync(context.db).size / 2 ** 20,
      close: async () => {
        release();
        await held;
      },
    });
    await closed;
  });
  held.catch(failed);
  return built;
}

function summary(history: History, reports: ChildRunReport[], publishedMb: number): Built {
  const fastest = reports.reduce((best, report) => (report.seconds < best.seconds ? report : best));
  const sync = {
    ...fastest,
    peakRssMb: Math.max(...reports.map((r) => r.peakRssMb)),
    cpuSeconds: Math.min(...reports.map((r) => r.cpuSeconds)),
  };
  return { backfill: history.backfill, sync, seconds: reports.map((r) => r.seconds), publishedMb };
}

/**
 * Both histories are built first, then their syncs alternate (30 days, the year, 30 days, ...): on a shared box the
 * load moves within minutes, and syncs run ten minutes apart measured the load as much as the file.
 */
async function syncBoth(): Promise<{ short: Built; year: Built }> {
  const short = await history(INITIAL_DAYS);
  try {
    const year = await history(YEAR_DAYS);
    try {
      const reports = { short: [] as ChildRunReport[], year: [] as ChildRunReport[] };
      for (let index = 0; index < SYNC_RUNS; index++) {
        reports.short.push(await short.syncOnce());
        reports.year.push(await year.syncOnce());
      }
      return {
        short: summary(short, reports.short, short.publishedMb()),
        year: summary(year, reports.year, year.publishedMb()),
      };
    } finally {
      await year.close();
    }
  } finally {
    await short.close();
  }
}

export async function run(): Promise<BenchResult[]> {
  const { short, year } = await syncBoth();
  const note = (built: Built) =>
    `${built.sync.planned} slices, ${built.sync.requests} requests in ${built.seconds.map((s) => s.toFixed(1)).join(' and ')} s (the faster counts); published file ${Math.round(built.publishedMb)} MB`;
  const ratio = year.sync.seconds / short.sync.seconds;
  const cpu = `CPU ${year.sync.cpuSeconds.toFixed(1)} s against ${short.sync.cpuSeconds.toFixed(1)} s (${(year.sync.cpuSeconds / short.sync.cpuSeconds).toFixed(2)} x)`;
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
      note: `${ratio.toFixed(2)} x; ${note(year)}; ${cpu}`,
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
