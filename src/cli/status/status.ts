import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Queue } from 'bullmq';
import { Command } from 'commander';
import type { DuckDBConnection, DuckDBResultReader } from '@duckdb/node-api';
import { textTable } from '../../text-table.js';
import { FETCH_QUEUE, LOAD_QUEUE, openQueues } from '../../engine/jobs/queues.js';
import { connectForCommand, explainFrozen } from '../../engine/redis/redis.js';
import { RunStore, type RunMeta } from '../../engine/run/run-store.js';
import { formatDecimal, formatInteger } from '../../format.js';
import { maxDay, minDay } from '../../days.js';
import { STREAM_NAMES } from '../../streams/stream-names.js';
import {
  backfillOver,
  skipCompleteBackfills,
  type SkipCompleteBackfill,
} from '../../engine/plan/skip-complete-backfill.js';
import { skipCompleteCommand } from '../run/skip-complete-command.js';
import type { Logger } from '../../log.js';
import {
  daySlicesNotComplete,
  freshnessTable,
  slicesNotCompleteTable,
  type SlicesNotCompleteCount,
} from '../../warehouse/state/bookkeeping.js';
import { dimensionReads } from '../../warehouse/state/dimension-reads.js';
import { withReadOnly } from '../../warehouse/publish/published-database.js';
import { DRIFT_ADVICE, tableDrift, tableDriftLine, type TableDrift } from './schema-drift-lines.js';
import { plainRows, rowReader, type PlainRow, type RowReader } from '../../warehouse/read-rows.js';
import { formatResult } from '../result-format.js';
import { recentRuns, type RunRow } from '../../warehouse/state/run-log.js';
import { lastFinishedHealRound } from '../../warehouse/state/heal-log.js';
import { prefixWarehouse } from '../../engine/writer/prefix-warehouse.js';
import { quotaStatus, type QuotaStatus } from '../../engine/fetch/quota-parking.js';
import { lakeLine, lakeStatus, type LakeStatus } from './lake-line.js';
import { publishedWarehouseId, warehouseIdentity, warehouseLine, type WarehouseIdentity } from './warehouse-line.js';
import {
  addCommonOptions,
  chooseStreams,
  commandLogger,
  commandToday,
  integerOption,
  readConfig,
  redisFor,
  type CommonFlags,
} from '../context.js';
import { EXIT_NOT_DONE } from '../exit-codes.js';
import { keyRateSettings, rateLine, readKeyRate, slowedByLearnedRate, type KeyRate } from './key-rate.js';
import { syncedStreams, syncsBrand, type Config } from '../../configuration.js';
import { descriptionOf } from '../commands.js';

interface StatusFlags extends CommonFlags {
  runs?: number;
  db?: string;
  json?: boolean;
}

/** The days a run covers: its window once planned; before that, an incremental run's today. */
export function runWindowText(run: Pick<RunMeta, 'from' | 'to' | 'today'>): string {
  return run.from && run.to ? `${run.from}..${run.to}` : `as of ${run.today}`;
}

/** A run's streams in alphabetical order, or `all` when it runs every stream. */
export function runStreamsText(streams: string[]): string {
  return STREAM_NAMES.every((name) => streams.includes(name)) ? 'all' : [...streams].sort().join(',');
}

/** A run as status lists it: from Redis while Redis keeps it, else from the published file's `_sync_runs`. */
interface ListedRun {
  runId: string;
  kind: string;
  status: string;
  window: string;
  brands: number[];
  streams: string[];
  startedAt: string;
  finishedAt: string | null;
  source: 'redis' | 'warehouse';
}

/**
 * Everything `status` shows; `--json` prints it as it is. Runs are camelCase objects; the rows of `freshness` and
 * `slicesNotComplete` have the columns of the tables the text form shows.
 */
interface StatusReport {
  today: string;
  redis: { error: string | null };
  unfinishedRuns: Array<ListedRun & { slicesDone: number; slicesPlanned: number }>;
  recentRuns: ListedRun[];
  /** Recent runs under this Redis prefix that published another file, left out of `recentRuns`; their files, newest first. */
  otherWarehouseRuns: { count: number; files: string[] };
  /**
   * `workers`: BullMQ workers connected per queue (one per process on fetch, the writer's alone on load); null when Redis
   * refuses CLIENT LIST. An unfinished run stays `running` when its process was killed.
   */
  queues: Array<{
    queue: string;
    waiting: number;
    active: number;
    delayed: number;
    failed: number;
    completed: number;
    workers: number | null;
  }>;
  database: { path: string; exists: boolean };
  freshness: PlainRow[];
  slicesNotComplete: PlainRow[];
  /** How many slices are not complete in all: `slicesNotComplete` lists failed ones first, at most 50. */
  slicesNotCompleteTotal: number;
  /** Of those, the ones no run reads again: of brands the config does not name, or of streams it does not sync. */
  slicesNotCompleteOutsideConfig: { brands: number[]; streams: string[]; slices: number } | null;
  /**
   * The day slices not complete that a backfill still plans, and the `backfill --skip-complete` commands that read them
   * again (joined by `;`), with their first and last day, brands, streams and count. Null when none.
   */
  slicesNotCompleteDays: {
    first: string;
    last: string;
    brands: number[];
    streams: string[];
    slices: number;
    command: string;
  } | null;
  /**
   * Day slices not complete (of the config's brands and streams) no backfill plans any more: a domain, topic or engine
   * gone, a setting changed. They stay listed; null when it cannot be told (a file from before migration 014).
   */
  slicesNoLongerPlanned: number | null;
  /**
   * The API key's rate as learned from 429s (as `bvsync rate --json` prints it); null when Redis holds none for the
   * key, no key is configured, or Redis did not answer.
   */
  rate: KeyRate | null;
  /** The published copy's warehouse id and the one the Redis prefix records (src/engine/writer/prefix-warehouse.ts). */
  warehouse: WarehouseIdentity;
  /** The request budget's window and the runs waiting for the next one (docs/quota.md); null without `api.dailyRequestBudget`. */
  requestBudget: QuotaStatus | null;
  /**
   * The newest finished round of `sync.heal` (docs/healing.md), with the `brand|family|day` triples it leaves
   * persisting: re-read, and still disagreeing with the API. Null when the file has none.
   */
  healing?: { run: string; status: string; window: string; finishedAt: string | null; persisting: string[] } | null;
  /** Per table, what the API sent that the spec does not show (docs/schema-drift.md); null without a file that records it. */
  schemaDrift: TableDrift[] | null;
  /** The Parquet lake of `publish.parquet` and whether it is current; null when none is configured. */
  lake: LakeStatus | null;
}

export function statusCommand(): Command {
  return addCommonOptions(
    new Command('status')
      .description(descriptionOf('status'))
      .option('--runs <n>', 'how many recent runs to show', integerOption('--runs', 1), 10)
      .option(
        '--db <path>',
        "DuckDB file to read freshness and past runs from (default: the config's db, env BVSYNC_DB)",
      )
      .option('--json', 'print it all as one JSON object, for scripts and monitoring'),
  ).action(async (flags: StatusFlags) => {
    const { report, tables } = await gatherStatus(flags);
    process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : renderStatus(report, tables));
    // What the file holds is shown, but the runs and queues Redis holds are not: a script checking status must know.
    if (report.redis.error) process.exitCode = EXIT_NOT_DONE;
  });
}

/** The database's results as read, so the text form draws them as `sql` does (same columns, same number formats). */
interface DatabaseTables {
  freshness: DuckDBResultReader;
  failures: DuckDBResultReader;
}

async function gatherStatus(flags: StatusFlags): Promise<{ report: StatusReport; tables?: DatabaseTables }> {
  const config = readConfig(flags);
  const log = commandLogger(flags);
  const limit = flags.runs ?? 10;
  const dbPath = flags.db ?? config.db;
  const report: StatusReport = {
    today: commandToday(),
    redis: { error: null },
    unfinishedRuns: [],
    recentRuns: [],
    otherWarehouseRuns: { count: 0, files: [] },
    queues: [],
    database: { path: dbPath, exists: existsSync(dbPath) },
    freshness: [],
    slicesNotComplete: [],
    slicesNotCompleteTotal: 0,
    slicesNotCompleteOutsideConfig: null,
    slicesNotCompleteDays: null,
    slicesNoLongerPlanned: null,
    rate: null,
    warehouse: warehouseIdentity(config.redisPrefix, null, null),
    requestBudget: null,
    schemaDrift: null,
    lake: lakeStatus(config.publish.parquet, dbPath),
  };
  let recorded: Awaited<ReturnType<typeof prefixWarehouse>>;
  const redis = await redisFor(config, log, { allowPrivate: false }).catch((error: Error) => {
    report.redis.error = error.message;
    return undefined;
  });
  if (redis) {
    const connection = connectForCommand(redis.url);
    try {
      const store = new RunStore(connection, config.redisPrefix);
      recorded = await prefixWarehouse(connection, config.redisPrefix);
      // Unfinished runs first: one of them is what a sync or backfill of the same window attaches to, or what to cancel.
      for (const run of await store.unfinished()) {
        const { planned, done } = await store.progress(run.runId);
        report.unfinishedRuns.push({ ...listedFromRedis(run), slicesDone: done, slicesPlanned: planned });
      }
      const recent = await store.recent(limit);
      const others = recent.filter((run) => run.published !== null && !sameFile(run.published, dbPath));
      report.recentRuns = recent.filter((run) => !others.includes(run)).map(listedFromRedis);
      report.otherWarehouseRuns = { count: others.length, files: [...new Set(others.map((run) => run.published!))] };
      const queues = openQueues(connection, config.redisPrefix);
      for (const queue of [queues.fetch, queues.load]) {
        const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed');
        const workers = await workersOf(queue);
        report.queues.push({
          queue: queue.name,
          waiting: counts.waiting ?? 0,
          active: counts.active ?? 0,
          delayed: counts.delayed ?? 0,
          failed: counts.failed ?? 0,
          completed: counts.completed ?? 0,
          workers,
        });
      }
      report.requestBudget = await quotaStatus(connection, config, queues);
      await queues.close();
      const rateSettings = keyRateSettings(config);
      if (rateSettings) {
        const rate = await readKeyRate(connection, rateSettings);
        report.rate = rate.learned || rate.stated ? rate : null;
      }
    } catch (error) {
      // A Redis that stopped answering midway is told as one that never answered: the file is still shown.
      const explained = explainFrozen(error, redis.url);
      if (explained === error) throw error;
      report.redis.error = (explained as Error).message;
      report.unfinishedRuns = [];
      report.recentRuns = [];
      report.queues = [];
      report.otherWarehouseRuns = { count: 0, files: [] };
      report.requestBudget = null;
      report.rate = null;
      recorded = undefined;
    } finally {
      connection.disconnect();
    }
  }
  report.warehouse = warehouseIdentity(
    config.redisPrefix,
    report.database.exists ? await publishedWarehouseId(dbPath) : null,
    recorded,
  );
  if (!report.database.exists) return { report };
  return await withReadOnly(dbPath, async (db) => {
    report.database.path = db.path;
    // Redis forgets runs (after 14 days, or a demo's private prefix at once); the file's `_sync_runs` keeps them all.
    const known = new Set(report.recentRuns.map((run) => run.runId));
    const fromFile = (await recentRuns(db.connection, limit))
      .filter((run) => !known.has(run.runId))
      .map(listedFromWarehouse);
    report.recentRuns = [...report.recentRuns, ...fromFile]
      .sort((a, b) => b.startedAt.localeCompare(a.startedAt))
      .slice(0, limit);
    const failures = await slicesNotCompleteTable(db.connection);
    const tables = { freshness: await freshnessTable(db.connection, report.today), failures: failures.table };
    report.freshness = plainRows(tables.freshness);
    report.slicesNotComplete = plainRows(tables.failures);
    report.slicesNotCompleteTotal = failures.total;
    report.slicesNotCompleteOutsideConfig = slicesOutsideConfig(config, failures.counts);
    report.healing = await lastHealing(db.connection);
    const { backfills, notPlanned } = await backfillsToAdvise(config, report.today, rowReader(db.connection), log);
    report.slicesNoLongerPlanned = notPlanned;
    report.schemaDrift = await tableDrift(db.connection);
    report.slicesNotCompleteDays = backfills.length
      ? {
          first: backfills.map((each) => each.from).reduce(minDay),
          last: backfills.map((each) => each.to).reduce(maxDay),
          brands: [...new Set(backfills.flatMap((each) => each.brands))].sort((a, b) => a - b),
          streams: backfills.flatMap((each) => each.streams).sort(),
          slices: backfills.reduce((sum, each) => sum + each.slices, 0),
          // One backfill per span of days, brands and streams (src/engine/plan/skip-complete-backfill.ts), one after the
          // other: `;`, not `&&`, as a backfill that leaves a slice failed exits 1, and the next must run all the same.
          command: backfills.map((each) => skipCompleteCommand(each, config.brands)).join('; '),
        }
      : null;
    return { report, tables };
  });
}

/**
 * The `backfill --skip-complete` runs to advise over the day slices not complete that a backfill still plans (one per
 * span, src/engine/plan/skip-complete-backfill.ts), and how many none plans: null when that cannot be told.
 */
async function backfillsToAdvise(
  config: Config,
  today: string,
  read: RowReader,
  log: Logger,
): Promise<{ backfills: SkipCompleteBackfill[]; notPlanned: number | null }> {
  const notComplete = await daySlicesNotComplete(read, {
    brands: config.brands,
    streams: chooseStreams(config, undefined),
  });
  try {
    const backfills = await skipCompleteBackfills({
      notComplete,
      sync: config.sync,
      today,
      reads: dimensionReads(read),
    });
    return { backfills, notPlanned: notComplete.length - backfills.reduce((sum, each) => sum + each.slices, 0) };
  } catch (error) {
    // A file an older bvsync published and none has synced since may lack what a plan reads (the echoed engines of
    // migration 014): every slice counts then, as a series no longer planned cannot be told apart.
    log.warn(
      { err: (error as Error).message },
      'cannot tell which slices not complete a backfill still plans; advising over all of them',
    );
    const all = backfillOver(notComplete);
    return { backfills: all ? [all] : [], notPlanned: null };
  }
}

/** Whether two paths name one file: the same absolute path, or (both there) the same file behind links. */
function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/** A run as status lists it, from either source: `window` is the only field each spells its own way. */
function listedRun(run: RunMeta | RunRow, window: string, source: ListedRun['source']): ListedRun {
  const { runId, kind, status, brands, streams, startedAt, finishedAt } = run;
  return { runId, kind, status, window, brands, streams, startedAt, finishedAt, source };
}

const listedFromRedis = (run: RunMeta): ListedRun => listedRun(run, runWindowText(run), 'redis');

const listedFromWarehouse = (run: RunRow): ListedRun =>
  listedRun(run, run.windowStart && run.windowEnd ? `${run.windowStart}..${run.windowEnd}` : '', 'warehouse');

/** The newest finished round of `sync.heal`; null when there is none, or the file predates `_heal_runs` (migration 017). */
async function lastHealing(connection: DuckDBConnection): Promise<StatusReport['healing']> {
  const round = await lastFinishedHealRound(rowReader(connection)).catch(() => undefined);
  if (!round) return null;
  return {
    run: round.healId,
    status: round.status,
    window: `${round.windowStart}..${round.windowEnd}`,
    finishedAt: round.finishedAt,
    persisting: round.persisting,
  };
}

/** One line: what the newest healing round left disagreeing, or that it left nothing. */
function healingLine(healing: NonNullable<StatusReport['healing']>): string {
  const head = `Healing (sync.heal): the round after ${healing.run} (${healing.window}) ended ${healing.status}`;
  if (!healing.persisting.length) return `${head}; nothing it re-read still disagrees`;
  const shown = healing.persisting.slice(0, 5).join(', ');
  const more = healing.persisting.length > 5 ? ` and ${healing.persisting.length - 5} more` : '';
  return `${head}; ${healing.persisting.length} brand|family|day still disagree after a re-read and are not re-read again: ${shown}${more} (bvsync verify shows the figures)`;
}

function renderStatus(report: StatusReport, tables: DatabaseTables | undefined): string {
  const out: string[] = [];
  if (report.redis.error) out.push(`Redis: ${report.redis.error}`);
  else {
    const unfinished = textTable(['run', 'kind', 'status', 'window', 'brands', 'streams', 'started', 'slices done']);
    for (const run of report.unfinishedRuns)
      unfinished.push([
        run.runId,
        run.kind,
        run.status,
        run.window,
        run.brands.join(','),
        runStreamsText(run.streams),
        run.startedAt.slice(0, 19),
        `${formatInteger(run.slicesDone)}/${formatInteger(run.slicesPlanned)}`,
      ]);
    out.push(
      'Unfinished runs (bvsync cancel RUN drops one)',
      report.unfinishedRuns.length ? unfinished.toString() : '(none)',
    );
    const stalled = report.unfinishedRuns.length ? unmovedRunsNote(report.queues) : undefined;
    if (stalled) out.push(stalled);
    out.push('');
  }
  const runTable = textTable(['run', 'kind', 'status', 'window', 'brands', 'started', 'finished']);
  for (const run of report.recentRuns)
    runTable.push([
      run.runId,
      run.kind,
      run.status,
      run.window,
      run.brands.join(','),
      run.startedAt.slice(0, 19),
      run.finishedAt?.slice(0, 19) ?? '',
    ]);
  const fromFile = report.recentRuns.some((run) => run.source === 'warehouse');
  const heading = report.redis.error
    ? 'Recent runs (from _sync_runs: Redis did not answer)'
    : fromFile
      ? 'Recent runs (from Redis; those it no longer holds from _sync_runs)'
      : 'Recent runs';
  out.push(heading, report.recentRuns.length ? runTable.toString() : '(none)');
  const others = report.otherWarehouseRuns;
  if (others.count)
    out.push(
      `${formatInteger(others.count)} more run${others.count === 1 ? '' : 's'} under this Redis prefix published another file (${others.files.join(', ')}), ` +
        'so not listed: each warehouse needs a Redis prefix of its own (config "redisPrefix", or BVSYNC_REDIS_PREFIX)',
    );
  if (!report.redis.error) out.push('', warehouseLine(report.warehouse, report.database.path));
  if (report.lake) out.push(lakeLine(report.lake));
  if (report.queues.length) {
    const queueTable = textTable(
      ['queue', 'waiting', 'active', 'delayed', 'failed', 'completed', 'workers'],
      ['left', 'right', 'right', 'right', 'right', 'right', 'right'],
    );
    for (const queue of report.queues)
      queueTable.push([
        queue.queue,
        ...[queue.waiting, queue.active, queue.delayed, queue.failed, queue.completed].map(formatInteger),
        queue.workers === null ? '?' : formatInteger(queue.workers),
      ]);
    out.push('', 'Queues', queueTable.toString());
  }
  if (report.requestBudget) out.push('', ...requestBudgetLines(report.requestBudget));
  if (report.rate?.stated) out.push('', `The ${rateLine(report.rate)}`);
  const slowed = report.rate && slowedByLearnedRate(report.rate) ? report.rate : undefined;
  if (slowed) {
    const kept = slowed.learned?.expiresAt ? ` and kept until ${slowed.learned.expiresAt}` : '';
    out.push(
      '',
      `The API key runs at ${formatDecimal(slowed.rateNow)}/s of its ${formatDecimal(slowed.ceiling)}/s, learned from 429s${kept}: bvsync rate --reset resets it`,
    );
  }
  if (!tables) {
    out.push('', `No published database at ${report.database.path} yet: run bvsync sync or bvsync backfill.`);
  } else {
    out.push(
      '',
      `Freshness (${report.database.path}; today, ${report.today} UTC, is still filling up: partial, not complete)`,
      formatResult(tables.freshness, 'table').trimEnd(),
    );
    const shown = tables.failures.currentRowCount;
    const total = report.slicesNotCompleteTotal;
    const heading =
      total > shown
        ? `Slices not complete, or whose last attempt failed (${shown} of ${total}: failed first, then the latest)`
        : 'Slices not complete, or whose last attempt failed';
    out.push('', heading, formatResult(tables.failures, 'table').trimEnd());
    if (total > shown)
      out.push(
        `${total - shown} more: bvsync sql "SELECT brand_id, stream, slice_key, status, error_code, last_error FROM _sync_state WHERE status <> 'complete'"`,
      );
    const outside = report.slicesNotCompleteOutsideConfig;
    if (outside) {
      const whose = [
        ...(outside.brands.length ? [`brand(s) ${outside.brands.join(', ')}, not in the config's brands`] : []),
        ...(outside.streams.length ? [`stream(s) ${outside.streams.join(', ')}, which the config does not sync`] : []),
      ];
      out.push(
        `${formatInteger(outside.slices)} of them are of ${whose.join(', or of ')}: ` +
          'no run reads them again, and they stay in _sync_state',
      );
    }
    if (report.healing) out.push('', healingLine(report.healing));
    const advice = report.slicesNotCompleteDays;
    if (advice)
      out.push(
        `${advice.command} reads again only the slices of those streams and days not complete (those the config still plans)`,
      );
    const notPlanned = report.slicesNoLongerPlanned ?? 0;
    if (notPlanned > 0)
      out.push(
        `${formatInteger(notPlanned)} day slice(s) not complete are of a series a backfill of their days no longer plans (a domain, topic or engine gone, ` +
          'or a setting changed): the advised backfill does not read them',
      );
    if (report.schemaDrift?.length)
      out.push('', 'Schema drift', ...report.schemaDrift.map(tableDriftLine), DRIFT_ADVICE);
  }
  return `${out.join('\n')}\n`;
}

/** The request budget's window, and each run waiting for the next: what is left of it and when it goes on. */
export function requestBudgetLines(budget: QuotaStatus): string[] {
  const lines = [
    `Request budget (api.dailyRequestBudget): ${formatInteger(budget.spent)} of ${formatInteger(budget.budget)} spent in the window ` +
      `${budget.window.start.slice(0, 16)}..${budget.window.end.slice(0, 16)} UTC; backfills may spend ${formatInteger(budget.backfillShare)} of it`,
  ];
  if (budget.spentUntil) lines.push(`The API said the key's quota is spent until ${budget.spentUntil}`);
  for (const run of budget.waiting)
    lines.push(
      `run ${run.runId} waits for the next window: ${formatInteger(run.slices)} slice(s) of ${formatInteger(run.days)} day(s) left, ` +
        `about ${formatInteger(run.requests)} request(s); it resumes at ${run.resumesAt}`,
    );
  return lines;
}

/** BullMQ workers connected to a queue; null when Redis does not say. */
async function workersOf(queue: Queue): Promise<number | null> {
  const workers = await queue.getWorkers().catch(() => null);
  // BullMQ answers for a Redis without CLIENT LIST with one made-up entry, which has no address.
  if (!workers || workers.some((worker) => worker.addr === undefined)) return null;
  return workers.length;
}

/**
 * What moves the unfinished runs, when nothing does: no process fetches their slices, or none holds the writer to
 * load them (a fetch-only worker alone). Undefined when both have workers, or Redis does not say.
 */
function unmovedRunsNote(queues: StatusReport['queues']): string | undefined {
  const workers = (name: string) => queues.find((queue) => queue.queue === name)?.workers;
  const [fetching, loading] = [workers(FETCH_QUEUE), workers(LOAD_QUEUE)];
  if (fetching === 0 && loading === 0)
    return (
      'No bvsync process is connected to the queues, so these runs move nowhere (enqueued for a worker, or their process stopped): ' +
      '`bvsync worker`, or the same sync or backfill again, takes them up where they are'
    );
  if (loading === 0)
    return 'No bvsync process holds the writer (the load queue has no worker): slices are fetched but not loaded until a `bvsync worker` without --fetch-only, or the same sync or backfill, runs';
  return undefined;
}

/**
 * The slices not complete that no run of this config reads again: of a brand it does not name, or of a stream neither
 * `sync.streams` nor a schedule runs (test/e2e/brand-access.int.test.ts).
 */
function slicesOutsideConfig(
  config: Config,
  counts: readonly SlicesNotCompleteCount[],
): StatusReport['slicesNotCompleteOutsideConfig'] {
  const synced = syncedStreams(config);
  const brands = new Set<number>();
  const streams = new Set<string>();
  let slices = 0;
  for (const each of counts) {
    // A brand out of the config is named as such, whatever its stream.
    if (!syncsBrand(config, each.brand)) brands.add(each.brand);
    else if (!synced.has(each.stream)) streams.add(each.stream);
    else continue;
    slices += each.slices;
  }
  if (!brands.size && !streams.size) return null;
  return { brands: [...brands].sort((a, b) => a - b), streams: [...streams].sort(), slices };
}
