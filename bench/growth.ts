import { copyFileSync, existsSync, linkSync, rmSync, statSync } from 'node:fs';
import { addDays } from '../src/days.js';
import { workingPathFor } from '../src/warehouse/paths.js';
import { duckdbSettings } from '../src/warehouse/file/duckdb-budget.js';
import { openWarehouse } from '../src/warehouse/warehouse.js';
import { conversationRows, sliceBatch } from '../test/warehouse/batches.js';
import {
  conversationsSpec,
  daysBack,
  runInChild,
  SHIPPED_NODE_OPTIONS,
  TODAY,
  withShippedEnvironment,
  withSimulator,
  type ChildRunReport,
} from './harness.js';
import type { BenchResult } from './run.js';

const PER_DAY = 10_000;
const SYNC_DAYS = 3;
const EARLIER_DAYS = Number(process.env.BVSYNC_BENCH_GROWTH_DAYS ?? 500);
const LIMIT_MB = 400;
const MAX_RATIO = 1.5;
/** Runs of the measured sync on each warehouse, each from the same files; the fastest counts, the highest RSS. */
const SYNC_RUNS = 2;
/** Ids of the generated answers start here, far above the simulator's, so no key collides with a synced answer. */
const GENERATED_IDS = 1_000_000_000_000;

/**
 * Writes `days` days of PER_DAY conversations (two brand rows each) before the sync window, their complete slice
 * states, the stream's cursor on yesterday, and publishes once. Returns the rows written.
 */
async function fillWarehouse(db: string, days: number): Promise<number> {
  // The set-up is not measured: building a 5,000,000-key index in one statement needs more than the writer's budget,
  // which the measured sync then runs with.
  const wh = await openWarehouse(workingPathFor(db), { duckdb: { memory_limit: '4GB', threads: '2' } });
  try {
    const lastDay = daysBack(SYNC_DAYS);
    const firstDay = addDays(lastDay, -(days - 1));
    const count = days * PER_DAY;
    if (count > 0) {
      // Ordered by day, as days of answers arrive: each row group then spans a day or two, and a day's rows are
      // found through zone maps the way a warehouse filled by daily syncs finds them.
      await wh.query(
        `INSERT INTO conversations (brand_id, id, "day", "date", model, has_shopping, mentioned, recommended, "position",
                                    recommendation_position, fact_check_passed, topic_id, _extra, _synced_at, _run_id)
         SELECT 1, ${GENERATED_IDS} + i, DATE '${firstDay}' + CAST(i // ${PER_DAY} AS INTEGER),
                TIMESTAMPTZ '${firstDay} 00:00:00+00' + to_seconds(i % 86400), 'engine-' || (i % 5), i % 7 = 0, i % 2 = 0,
                i % 3 = 0, CAST(i % 6 + 1 AS INTEGER), CASE WHEN i % 3 = 0 THEN 1 END, true, NULL, NULL, now(), 'generated'
         FROM range(${count}) t(i)`,
      );
      await wh.query(
        `INSERT INTO conversation_brands (brand_id, conversation_id, ordinal, "day", name, website, "position", is_own_brand, _extra, _synced_at, _run_id)
         SELECT 1, ${GENERATED_IDS} + i, CAST(o AS INTEGER), DATE '${firstDay}' + CAST(i // ${PER_DAY} AS INTEGER),
                'brand-' || ((i + o) % 40), 'brand-' || ((i + o) % 40) || '.example', CAST(o + 1 AS INTEGER), o = 0, NULL, now(), 'generated'
         FROM range(${count}) t(i), range(2) b(o)`,
      );
      await wh.query(
        `INSERT INTO _sync_state (brand_id, stream, slice_key, "day", status, "rows", total_rows, attempts, requests, run_id, completed_at, updated_at)
         SELECT 1, 'conversations', strftime(d, '%Y-%m-%d'), d, 'complete', ${PER_DAY}, ${PER_DAY}, 1, ${PER_DAY / 100}, 'generated', now(), now()
         FROM (SELECT CAST(DATE '${firstDay}' + CAST(n AS INTEGER) AS DATE) AS d FROM range(${days}) t(n))`,
      );
    }
    await wh.query(
      `INSERT INTO _sync_cursors (brand_id, stream, through_day, run_id, updated_at) VALUES (1, 'conversations', DATE '${addDays(TODAY, -1)}', 'generated', now())`,
    );
    await wh.publish(db);
    return count;
  } finally {
    await wh.close();
  }
}

interface PublishFigures {
  incrementalMs: number;
  /** The full copy's time, or what stopped it. */
  full: { ms: number } | { error: string };
}

/**
 * The publish alone, with the writer's budget, after one more day is re-loaded: brought up to date from the journal,
 * then the whole file copied as every publish did before (and as one still does after a migration).
 */
async function publishes(db: string): Promise<PublishFigures> {
  const wh = await openWarehouse(workingPathFor(db), { duckdb: duckdbSettings() });
  try {
    const day = daysBack(SYNC_DAYS + 1);
    await wh.loadSlice(
      sliceBatch({
        runId: 'bench-growth',
        brandId: 1,
        stream: 'conversations',
        sliceKey: day,
        day,
        writes: [
          {
            table: 'conversations',
            mode: 'replace',
            scope: { brand_id: 1, day },
            rows: conversationRows(day, PER_DAY, GENERATED_IDS * 2),
          },
        ],
      }),
    );
    // As a run does from its first commit: the clone is made beside the loads, and the publish only brings it up to date.
    await wh.preparePublish(db);
    const incremental = await wh.publish(db);
    if (incremental.mode !== 'incremental')
      throw new Error(`the publish after a sync was a full copy: ${incremental.fullCopyReason}`);
    const full = await wh.publish(db, { incremental: false }).then(
      (result) => ({ ms: result.ms }),
      (error: Error) => ({ error: error.message.split('\n')[0]! }),
    );
    return { incrementalMs: incremental.ms, full };
  } finally {
    await wh.close();
  }
}

/**
 * Keeps the published and working files (and a write-ahead log, if one was left) aside, to start again from them. The
 * published file is kept as a second link to it, not a copy: a publish only renames a new file over the name, so the
 * file linked stays as it was, and put back it is the very file the working file recorded publishing. A copy put back
 * is another file, and the next publish rightly copied the whole warehouse (published-identity.ts).
 */
function keepAside(db: string): { restore(): void } {
  const files = [workingPathFor(db)].flatMap((file) => [file, `${file}.wal`]).filter((file) => existsSync(file));
  for (const file of files) copyFileSync(file, `${file}.aside`);
  const published = existsSync(db);
  if (published) linkSync(db, `${db}.aside`);
  return {
    restore() {
      for (const file of [db, workingPathFor(db)]) rmSync(`${file}.wal`, { force: true });
      for (const file of files) copyFileSync(`${file}.aside`, file);
      if (published) {
        rmSync(db);
        linkSync(`${db}.aside`, db);
      }
    },
  };
}

async function syncOn(
  days: number,
  measurePublish: boolean,
): Promise<{
  report: ChildRunReport;
  seconds: number[];
  filled: number;
  publishedMb: number;
  publish?: PublishFigures;
}> {
  return withSimulator(`bench-growth-${days}`, { scale: PER_DAY, days: SYNC_DAYS }, async (context) => {
    const filled = await fillWarehouse(context.db, days);
    const aside = keepAside(context.db);
    // As bvsync is started: the RSS targets are for it, not for node's defaults (whose heap alone reaches ~230 MB).
    const spec = conversationsSpec(context, SYNC_DAYS, {
      kind: 'sync',
      from: undefined,
      to: undefined,
      nodeOptions: SHIPPED_NODE_OPTIONS,
    });
    const reports: ChildRunReport[] = [];
    for (let index = 0; index < SYNC_RUNS; index++) {
      if (index > 0) aside.restore();
      const report = await withShippedEnvironment(() => runInChild(spec));
      if (report.status !== 'complete') throw new Error(`the sync ended ${report.status}`);
      reports.push(report);
    }
    const fastest = reports.reduce((best, report) => (report.seconds < best.seconds ? report : best));
    const report = {
      ...fastest,
      peakRssMb: Math.max(...reports.map((r) => r.peakRssMb)),
      peakHeapMb: Math.max(...reports.map((r) => r.peakHeapMb)),
    };
    const publishedMb = statSync(context.db).size / 2 ** 20;
    return {
      report,
      seconds: reports.map((r) => r.seconds),
      filled,
      publishedMb,
      ...(measurePublish ? { publish: await publishes(context.db) } : {}),
    };
  });
}

export async function run(): Promise<BenchResult[]> {
  const empty = await syncOn(0, false);
  const large = await syncOn(EARLIER_DAYS, true);
  const note = (figure: typeof empty) =>
    `${figure.filled.toLocaleString('en-US')} conversations before; ${figure.report.records.toLocaleString('en-US')} synced in ${figure.seconds.map((s) => s.toFixed(1)).join(' and ')} s (the faster counts); ` +
    `published file ${Math.round(figure.publishedMb)} MB; V8 heap peak ${Math.round(figure.report.peakHeapMb)} MB`;
  const ratio = large.report.seconds / empty.report.seconds;
  const largeLabel = `${(large.filled / 1e6).toLocaleString('en-US')}M conversations`;
  return [
    {
      scenario: 'growth',
      metric: `3-day sync time, ${largeLabel} vs empty`,
      value: large.report.seconds,
      unit: 's',
      reference: empty.report.seconds,
      target: `<= ${MAX_RATIO} x empty`,
      met: ratio <= MAX_RATIO,
      note: `${ratio.toFixed(2)} x; ${note(large)}`,
    },
    {
      scenario: 'growth',
      metric: `peak RSS, 3-day sync on ${largeLabel}`,
      value: large.report.peakRssMb,
      unit: 'MB',
      reference: LIMIT_MB,
      target: `<= ${LIMIT_MB} MB`,
      met: large.report.peakRssMb <= LIMIT_MB,
      note: note(large),
    },
    publishRow(largeLabel, large.publish!),
    {
      scenario: 'growth',
      metric: 'peak RSS, 3-day sync on an empty warehouse',
      value: empty.report.peakRssMb,
      unit: 'MB',
      reference: LIMIT_MB,
      target: `<= ${LIMIT_MB} MB`,
      met: empty.report.peakRssMb <= LIMIT_MB,
      note: note(empty),
    },
  ];
}

function publishRow(label: string, figures: PublishFigures): BenchResult {
  const full = 'ms' in figures.full ? `${(figures.full.ms / 1000).toFixed(1)} s` : `failed: ${figures.full.error}`;
  return {
    scenario: 'growth',
    metric: `publish after one day re-loaded, ${label}`,
    value: figures.incrementalMs / 1000,
    unit: 's',
    ...('ms' in figures.full ? { reference: figures.full.ms / 1000 } : {}),
    note: `incremental (the reference: a full copy of the file, ${full}), both with the writer's DuckDB budget`,
  };
}
