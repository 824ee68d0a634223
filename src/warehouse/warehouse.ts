import { resolve } from 'node:path';
import { DuckDBInstance, listValue, type DuckDBConnection, type DuckDBValue } from '@duckdb/node-api';
import {
  completeDays,
  newestCompletePastDays,
  requestsByDay,
  sliceKeyText,
  storedSliceStates,
  type NewestCompleteDay,
  type SliceKey,
  type StoredSliceState,
} from './state/bookkeeping.js';
import { readCatalog, type TableInfo } from './catalog.js';
import { DatabaseLockedError, isLockConflict } from './file/database-locked-error.js';
import { ensureDatabaseFolder } from './file/database-path.js';
import { removeDeadSpillFiles } from './file/spill-folder.js';
import { migrate, schemaVersion, type AppliedMigration } from './migrator.js';
import { lakeJournalFloor, writeLake, type LakeOutcome, type LakePosition } from './publish/parquet-lake.js';
import {
  discardPreparedClone,
  dropPublishMarker,
  preparePublishClone,
  publishCopy,
  publishPosition,
  type PreparedClone,
  type PublishOptions,
  type PublishResult,
} from './publish/publish.js';
import { ensureJournal } from './publish/publish-journal.js';
import { ensurePublishCosts } from './publish/publish-cost.js';
import { ensurePublishedFiles, identityOf } from './publish/published-identity.js';
import {
  committedTokens,
  ensureSliceCommits,
  highestFenceToken,
  pruneSliceCommits,
  runCommitCount,
} from './load/slice-commits.js';
import type { CommitFence } from './load/commit-fence.js';
import { readRows, rowReader, type PlainRow, type RowReader } from './read-rows.js';
import { inTransaction } from './transaction.js';
import {
  addUncountedRequests,
  advanceCursor,
  cursors,
  finishRun,
  hasRun,
  recentRuns,
  sliceOutcomes,
  sliceStates,
  startRun,
  type RunRow,
  type RunStart,
  type SliceOutcome,
  type SliceStateFilter,
  type SliceStateRow,
  type UncountedRequests,
} from './state/run-log.js';
import { dimensionReads, type DimensionReads } from './state/dimension-reads.js';
import { OTHER_ENGINES_SQL, type OtherEnginesDays } from './state/other-engines.js';
import { COMPLETE_SLICES_SQL } from './state/complete-slices.js';
import { SERIES_READ_DAYS_SQL } from './state/unread-days.js';
import { DAYS_READ_WITH_SQL, READ_SETTINGS_IN_USE_SQL, type DaysReadWith } from './state/other-read-settings.js';
import type { Row, Scope, SliceBatch } from './load/slice-batch.js';
import { keysHeldElsewhere, type KeyHeldElsewhere } from './load/keys-held-elsewhere.js';
import { loadSliceBatches, type LoadResult } from './load/slice-loader.js';
import { planTable, type TablePlan } from './load/table-plan.js';
import { promoteFields, type Promotions } from './load/promote.js';
import {
  driftEntries,
  driftFirstSeenBy,
  recordSchemaDrift,
  type DriftEntry,
  type DriftVocabulary,
} from './schema-drift.js';
import { WarehouseError } from './warehouse-error.js';
import { DatabaseInvalidatedError, writerFaultOf, type WriterFault } from './file/writer-fault.js';
import { warehouseIdOf } from './state/warehouse-id.js';
import {
  healRound,
  lastFinishedHealRound,
  persistingToldSince,
  saveHealRound,
  type HealRound,
} from './state/heal-log.js';
import { openWaitingForLock, type ReopenTrigger } from './file/memory-release.js';
import type { FinishedRunStatus, RunLogStatus } from '../vocabulary.js';
import { brandStreamId, sliceId } from '../slice-ids.js';

export interface WarehouseOptions {
  /** Folder of numbered migrations; default the package's `sql/migrations/`. */
  migrationsDir?: string;
  /** Migrate up to this version only; default every migration (tests build older databases with it). */
  migrationTarget?: number;
  /** Folder of view files created in published copies; default the package's `sql/views/`. */
  viewsDir?: string;
  /** DuckDB settings passed at open, e.g. `{ threads: '2', memory_limit: '2GB' }`; default DuckDB's own. */
  duckdb?: Record<string, string>;
  /**
   * The writer lease's fence (commit-fence.ts), confirmed before every write commits: each slice load's COMMIT, a run's
   * start and finish, a cursor's move, a publish. Default none: a file opened outside the engine (tests, tools).
   */
  fence?: CommitFence;
  /** The Parquet lake folder written after each publish (`publish.parquet`, docs/lake.md); default none. */
  lake?: string;
  /**
   * When to reopen DuckDB after a load and before a publish, to hand back the memory it kept (memory-release.ts);
   * default never.
   */
  reopen?: ReopenTrigger;
  /** Hears each reopen: the resident memory before and after, and how long it took. */
  onReopen?: (reopen: Reopen) => void;
}

/** One reopen of DuckDB to release memory, in MB and ms. */
export interface Reopen {
  beforeMb: number;
  afterMb: number;
  ms: number;
}

/**
 * The single writer of the working DuckDB file. Every call runs after the previous one finished (one
 * connection, one transaction at a time), so callers may fire them concurrently.
 */
export class Warehouse implements DimensionReads {
  private queue: Promise<unknown> = Promise.resolve();
  private plans = new Map<string, TablePlan>();
  private closed = false;
  /** The clone the next publish brings up to date, begun while the run loads (`preparePublish`). */
  private prepared: PreparedClone | undefined;
  /** The fault that ended writing (writer-fault.ts): every later call fails with it at once, without touching DuckDB. */
  private faulted: WriterFault | undefined;
  /** The fields each table moves out of `_extra` into columns (`promote`), for the plans of its rows. */
  private promotions: Promotions = {};
  /** Connections of `withReadConnection` still open: DuckDB is not reopened under them. */
  private readConnections = 0;
  /** A reopen under way (releaseMemoryWhenDue): a read connection waits for it, so it never meets a closed instance. */
  private reopening: Promise<void> | undefined;

  private constructor(
    readonly path: string,
    /** The id the file was made with (src/warehouse/state/warehouse-id.ts); undefined only below migration 016 (`migrationTarget`). */
    readonly id: string | undefined,
    private instance: DuckDBInstance,
    private connection: DuckDBConnection,
    private catalog: Map<string, TableInfo>,
    readonly migrationsApplied: AppliedMigration[],
    private readonly options: WarehouseOptions,
  ) {}

  static async open(workingPath: string, options: WarehouseOptions = {}): Promise<Warehouse> {
    const path = resolve(workingPath);
    ensureDatabaseFolder(path);
    const instance = await createInstance(path, options.duckdb);
    let connection: DuckDBConnection | undefined;
    try {
      connection = await instance.connect();
      const applied = await migrate(connection, { dir: options.migrationsDir, target: options.migrationTarget });
      await ensureJournal(connection);
      await ensurePublishedFiles(connection);
      await ensurePublishCosts(connection);
      await ensureSliceCommits(connection);
      await dropPublishMarker(connection);
      await removeDeadSpillFiles(connection, path);
      const catalog = await readCatalog(connection);
      const id = await warehouseIdOf(rowReader(connection));
      return new Warehouse(path, id, instance, connection, catalog, applied, options);
    } catch (error) {
      connection?.closeSync();
      instance.closeSync();
      throw writerFaultOf(error, path) ?? error;
    }
  }

  /** The fault that ended writing, if one did: the host stops loading on it (src/engine/jobs/worker-host.ts). */
  get fault(): WriterFault | undefined {
    return this.faulted;
  }

  /** The tables the loader knows, with their columns and keys as the database declares them. */
  tables(): TableInfo[] {
    return [...this.catalog.values()];
  }

  /** The fields of a table that `promote` moves out of `_extra` into their own columns. */
  promotedFields(table: string): string[] {
    return Object.keys(this.promotions[table] ?? {});
  }

  /**
   * Makes `sync.promote` hold: adds each field's column, moves it out of `_extra` for every stored row in one fenced
   * transaction, and has later loads fill the column (promote.ts). Call before the first load; idempotent.
   */
  promote(promote: Promotions): Promise<{ added: string[]; moved: number }> {
    return this.serial(async () => {
      try {
        const result = await promoteFields(this.connection, this.catalog, promote, this.options.fence);
        this.promotions = promote;
        return result;
      } finally {
        // A column added before a later step failed is in the file all the same.
        if (Object.keys(promote).length) this.catalog = await readCatalog(this.connection);
        this.plans.clear();
      }
    });
  }

  /**
   * Records the run's schema drift in `_schema_drift` (schema-drift.ts) in one fenced transaction, and returns what
   * the run saw first: the fields, enum values and engines to tell people of once.
   */
  recordSchemaDrift(runId: string, vocabulary: DriftVocabulary): Promise<DriftEntry[]> {
    return this.fenced(async () => {
      await recordSchemaDrift(this.connection, this.tables(), runId, vocabulary);
      return driftFirstSeenBy(this.connection, runId);
    });
  }

  schemaDrift(): Promise<DriftEntry[]> {
    return this.serial(() => driftEntries(this.reader()));
  }

  /** Loads one slice in one transaction; see `loadSliceBatches`. */
  async loadSlice(batch: SliceBatch): Promise<LoadResult> {
    const [result] = await this.loadSlices([batch]);
    return result!;
  }

  /** Loads several slices in one transaction, each with its own state; see `loadSliceBatches`. */
  loadSlices(batches: readonly SliceBatch[]): Promise<LoadResult[]> {
    return this.serial(async () => {
      const results = await loadSliceBatches(this.connection, (table) => this.plan(table), batches, this.options.fence);
      await this.releaseMemoryWhenDue();
      return results;
    });
  }

  /** The highest fencing token a commit of this file was made under (slice-commits.ts); 0 when none was. */
  highestFenceToken(): Promise<number> {
    return this.serial(() => highestFenceToken(this.connection));
  }

  startRun(run: RunStart): Promise<void> {
    return this.fenced(() => startRun(this.connection, run));
  }

  /** Whether a slice's transaction committed the rows of the fetch with this token (slice-commits.ts). */
  hasCommitted(token: string): Promise<boolean> {
    return this.serial(async () => (await committedTokens(this.connection, [token])).has(token));
  }

  /**
   * What commit jobs about to load need to know of their slices, for a batch in two set statements: which tokens
   * committed already (a replay), and each slice's stored state, keyed by `sliceKeyText` (bookkeeping.ts).
   */
  commitLookups(
    slices: ReadonlyArray<SliceKey & { token: string }>,
  ): Promise<{ committed: Set<string>; states: Map<string, StoredSliceState> }> {
    const tokens = slices.map((slice) => slice.token);
    return this.serial(async () => ({
      committed: await committedTokens(this.connection, tokens),
      states: await storedSliceStates(this.reader(), slices),
    }));
  }

  /** How many slices the run committed into this file, by the fetch tokens its transactions recorded (slice-commits.ts). */
  runCommitCount(runId: string): Promise<number> {
    return this.serial(() => runCommitCount(this.connection, runId));
  }

  hasRun(runId: string): Promise<boolean> {
    return this.serial(() => hasRun(this.connection, runId));
  }

  finishRun(runId: string, status: FinishedRunStatus): Promise<void> {
    return this.fenced(async () => {
      await finishRun(this.connection, runId, status);
      await pruneSliceCommits(this.connection, new Date());
    });
  }

  /** The rows of a replace whose keys rows outside its scope hold (a record filed under another day now); see keys-held-elsewhere.ts. */
  keysHeldElsewhere(
    write: { table: string; scope: Scope; rows: readonly Row[] },
    brandId: number,
  ): Promise<KeyHeldElsewhere[]> {
    return this.serial(() => keysHeldElsewhere(this.connection, this.plan(write.table), write, brandId));
  }

  /** Adds a run's calls that no slice carried to `_sync_runs`; the run's status there, undefined without a row. */
  addUncountedRequests(runId: string, calls: UncountedRequests): Promise<RunLogStatus | undefined> {
    return this.fenced(() => addUncountedRequests(this.connection, runId, calls));
  }

  /** Moves the incremental position forward (never back); only incremental runs should call it. */
  advanceCursor(brandId: number, stream: string, day: string, runId: string): Promise<string> {
    return this.fenced(() => advanceCursor(this.connection, brandId, stream, day, runId));
  }

  /** Every incremental cursor, keyed `brand|stream`. */
  cursors(): Promise<Map<string, string>> {
    return this.serial(() => cursors(this.connection));
  }

  sliceStates(filter: SliceStateFilter = {}): Promise<SliceStateRow[]> {
    return this.serial(() => sliceStates(this.connection, filter));
  }

  /** Each slice the run attempted with its attempt's status, in four columns (run-log.ts `sliceOutcomes`). */
  sliceOutcomes(runId: string): Promise<SliceOutcome[]> {
    return this.serial(() => sliceOutcomes(this.connection, runId));
  }

  /** Each day between `from` and `to` holding slices of the stream, and whether all of them are complete. */
  completeDays(
    brandId: number,
    stream: string,
    from: string,
    to: string,
  ): Promise<Array<{ day: string; complete: boolean }>> {
    return this.serial(() => completeDays(this.reader(), brandId, stream, from, to));
  }

  /** A slice's stored state, or undefined before its first load. */
  storedSliceState(brandId: number, stream: string, sliceKey: string): Promise<StoredSliceState | undefined> {
    const slice = { brandId, stream, sliceKey };
    return this.serial(async () => (await storedSliceStates(this.reader(), [slice])).get(sliceKeyText(slice)));
  }

  /** Freshness per brand and stream: the newest day complete before `today` (today itself is partial). */
  newestCompletePastDays(today: string): Promise<NewestCompleteDay[]> {
    return this.serial(() => newestCompletePastDays(this.reader(), today));
  }

  /** Records a round of `sync.heal` in `_heal_runs` (heal-log.ts); `finished` stamps its end. */
  saveHealRound(round: Omit<HealRound, 'startedAt' | 'finishedAt'>, finished: boolean): Promise<void> {
    return this.fenced(() => saveHealRound(this.connection, round, finished));
  }

  healRound(healId: string): Promise<HealRound | undefined> {
    return this.serial(() => healRound(this.reader(), healId));
  }

  lastFinishedHealRound(): Promise<HealRound | undefined> {
    return this.serial(() => lastFinishedHealRound(this.reader()));
  }

  persistingToldSince(healId: string): Promise<Set<string>> {
    return this.serial(() => persistingToldSince(this.reader(), healId));
  }

  requestsByDay(window: { from: string; to: string }): Promise<PlainRow[]> {
    return this.serial(() => requestsByDay(this.reader(), window));
  }

  /**
   * Work on a connection of its own to the same file, for reads that wait on the API between queries (`sync.heal`'s
   * comparison): the writer's connection stays free, and the reads see what is committed.
   */
  async withReadConnection<T>(work: (connection: DuckDBConnection) => Promise<T>): Promise<T> {
    if (this.closed) throw new Error('the warehouse is closed');
    this.readConnections += 1;
    try {
      while (this.reopening) await this.reopening;
      if (this.faulted) throw this.faulted;
      const connection = await this.instance.connect();
      try {
        return await work(connection);
      } finally {
        connection.closeSync();
      }
    } finally {
      this.readConnections -= 1;
    }
  }

  recentRuns(limit = 20): Promise<RunRow[]> {
    return this.serial(() => recentRuns(this.connection, limit));
  }

  schemaVersion(): Promise<number> {
    return this.serial(() => schemaVersion(this.connection));
  }

  brandColumn(table: string, column: string, brandId: number): Promise<unknown[]> {
    return this.serial(() => dimensionReads(this.reader()).brandColumn(table, column, brandId));
  }

  listedPages(brandId: number, since?: string): Promise<string[]> {
    return this.serial(() => dimensionReads(this.reader()).listedPages(brandId, since));
  }

  /**
   * How many days of `first`..`before` (its last excluded) each series of day slices was read, whatever came of it
   * (src/warehouse/state/unread-days.ts), keyed `brand|stream|series`.
   */
  async seriesReadDays(
    asked: ReadonlyArray<{ brandId: number; stream: string; series: string; first: string; before: string }>,
  ): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    if (!asked.length) return found;
    const list = JSON.stringify(asked.map((each) => [each.brandId, each.stream, each.series, each.first, each.before]));
    for (const row of await this.serial(() => readRows(this.connection, SERIES_READ_DAYS_SQL, [list]))) {
      found.set(`${brandStreamId(Number(row.brand_id), String(row.stream))}|${String(row.series)}`, Number(row.days));
    }
    return found;
  }

  /**
   * Of the slices asked, those the file has complete (src/warehouse/state/complete-slices.ts), as `brand|stream|key`: a slice
   * of days completed once its window was over (`day`: the day after its last), a list (`day`: today) read today.
   */
  async completeSlices(
    asked: ReadonlyArray<{ brandId: number; stream: string; key: string; day: string; list: boolean }>,
  ): Promise<Set<string>> {
    if (!asked.length) return new Set();
    const list = JSON.stringify(asked.map((each) => [each.brandId, each.stream, each.key, each.day, each.list]));
    const rows = await this.serial(() => readRows(this.connection, COMPLETE_SLICES_SQL, [list]));
    return new Set(rows.map((row) => sliceId(Number(row.brand_id), String(row.stream), String(row.slice_key))));
  }

  /**
   * Each stream's complete days of a brand before a day of its own read under another engines filter than `engines`
   * (src/warehouse/state/other-engines.ts), keyed `brand|stream`; one scan however many are asked.
   */
  async daysOfOtherEngines(
    asked: ReadonlyArray<{ brandId: number; stream: string; before: string }>,
    engines: readonly string[],
  ): Promise<Map<string, OtherEnginesDays>> {
    const found = new Map<string, OtherEnginesDays>();
    if (!asked.length) return found;
    const list = JSON.stringify(asked.map((each) => [each.brandId, each.stream, each.before]));
    const rows = await this.serial(() =>
      readRows(this.connection, OTHER_ENGINES_SQL, [list, [...engines].sort().join(',')]),
    );
    for (const row of rows) {
      found.set(brandStreamId(Number(row.brand_id), String(row.stream)), {
        first: String(row.first),
        last: String(row.last),
        days: Number(row.days),
        sent: String(row.sent ?? ''),
      });
    }
    return found;
  }

  /** The read settings each stream's complete days were read with, each pair once (src/warehouse/state/other-read-settings.ts). */
  readSettingsInUse(): Promise<Array<{ stream: string; readWith: string }>> {
    return this.serial(async () =>
      (await readRows(this.connection, READ_SETTINGS_IN_USE_SQL)).map((row) => ({
        stream: String(row.stream),
        readWith: String(row.read_with),
      })),
    );
  }

  /** A stream's complete days of a brand before `before` read with any of `settings`, per setting. */
  daysReadWith(brandId: number, stream: string, before: string, settings: readonly string[]): Promise<DaysReadWith[]> {
    return this.serial(async () =>
      (await readRows(this.connection, DAYS_READ_WITH_SQL, [brandId, stream, before, listValue([...settings])])).map(
        (row) => ({
          readWith: String(row.read_with),
          first: String(row.first),
          last: String(row.last),
          days: Number(row.days),
        }),
      ),
    );
  }

  echoedEngines(stream: string): Promise<Map<number, string[]>> {
    return this.serial(() => dimensionReads(this.reader()).echoedEngines(stream));
  }

  /** Reads from the working file (status, tests); rows come back as plain values. */
  query(sql: string, params?: DuckDBValue[]): Promise<PlainRow[]> {
    return this.serial(() => readRows(this.connection, sql, params));
  }

  /**
   * Begins the clone the next publish to `publishedPath` updates, overlapping the run (publish.ts, `PreparedClone`),
   * once per publish. Resolves when it is whole (true) or could not be made (false); only the publish waits for it.
   */
  preparePublish(publishedPath: string): Promise<boolean> {
    if (this.closed || resolve(publishedPath) === this.path) return Promise.resolve(false);
    this.prepared ??= preparePublishClone(publishedPath);
    return this.prepared?.done ?? Promise.resolve(false);
  }

  /** Writes the read-only copy analysts open at `publishedPath` (atomic rename), with the views in it. */
  publish(publishedPath: string, options: PublishOptions = {}): Promise<PublishResult> {
    if (resolve(publishedPath) === this.path) {
      return Promise.reject(
        new Error(`cannot publish ${this.path} over itself; publish to the analysts' file beside it`),
      );
    }
    // Taken when the publish starts: a publish refused (the warehouse closing) leaves the clone for close() to remove.
    return this.serial(async () => {
      // A writer that lost the lease publishes nothing: the new writer's file is the one to publish.
      await this.options.fence?.confirm();
      await this.releaseMemoryWhenDue();
      const prepared = options.prepared ?? this.prepared;
      if (prepared === this.prepared) this.prepared = undefined;
      const lake = this.options.lake;
      const position = lake ? await publishPosition(this.connection) : undefined;
      const keepJournalFrom =
        lake && position ? await lakeJournalFloor(this.connection, lake, position).catch(() => undefined) : undefined;
      const published = await publishCopy(this.connection, publishedPath, {
        ...options,
        prepared,
        keepJournalFrom,
        viewsDir: options.viewsDir ?? this.options.viewsDir,
      });
      if (!lake || !position) return published;
      return { ...published, lake: await this.writeLakeAfter(lake, published.path, position) };
    });
  }

  /**
   * The lake after a publish, outside the publish's own work: whatever fails here leaves the published file published
   * and is told in the outcome (test/e2e/parquet-lake.int.test.ts).
   */
  private async writeLakeAfter(lake: string, publishedPath: string, position: LakePosition): Promise<LakeOutcome> {
    try {
      return {
        ok: true,
        ...(await writeLake(this.connection, lake, identityOf(publishedPath), position, this.options.fence)),
      };
    } catch (error) {
      return { ok: false, path: resolve(lake), error: (error as Error).message };
    }
  }

  /** Checkpoints and closes; calls already queued finish first. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.catch(() => undefined);
    await discardPreparedClone(this.prepared);
    this.prepared = undefined;
    try {
      // A faulted instance checkpoints nothing, not even at close: the next open replays the log, which holds only
      // what was committed (test/warehouse/faulted-close.int.test.ts).
      if (this.faulted) await this.connection.run('PRAGMA disable_checkpoint_on_shutdown').catch(() => undefined);
      else await this.connection.run('CHECKPOINT');
    } catch (error) {
      if (!writerFaultOf(error, this.path)) throw error;
    } finally {
      this.connection.closeSync();
      this.instance.closeSync();
    }
  }

  /**
   * Checkpoints, closes and reopens DuckDB between two calls when ReopenTrigger says so. A refused checkpoint keeps
   * DuckDB open (a disk fault still ends writing); an open failing after the close ends writing as a fault would.
   */
  private async releaseMemoryWhenDue(): Promise<void> {
    const trigger = this.options.reopen;
    if (!trigger || this.readConnections > 0) return;
    const before = process.memoryUsage.rss();
    if (!trigger.due(before)) return;
    let reopened: () => void = () => undefined;
    this.reopening = new Promise<void>((resolve) => (reopened = resolve));
    try {
      const started = performance.now();
      try {
        await this.connection.run('CHECKPOINT');
      } catch (error) {
        if (writerFaultOf(error, this.path)) throw error;
        trigger.reopened(before);
        return;
      }
      // A read connection asked for during the checkpoint waits for this reopen: it is given up instead.
      if (this.readConnections > 0) return;
      this.connection.closeSync();
      this.instance.closeSync();
      try {
        this.instance = await openWaitingForLock(() => createInstance(this.path, this.options.duckdb));
        this.connection = await this.instance.connect();
      } catch (error) {
        this.faulted = writerFaultOf(error, this.path) ?? new DatabaseInvalidatedError(this.path, error as Error);
        throw this.faulted;
      }
      const after = process.memoryUsage.rss();
      trigger.reopened(after);
      this.options.onReopen?.({
        beforeMb: Math.round(before / 2 ** 20),
        afterMb: Math.round(after / 2 ** 20),
        ms: Math.round(performance.now() - started),
      });
    } finally {
      this.reopening = undefined;
      reopened();
    }
  }

  private plan(table: string): TablePlan {
    let plan = this.plans.get(table);
    if (plan) return plan;
    const info = this.catalog.get(table);
    if (!info) {
      throw new WarehouseError(
        'unknown_table',
        `no table "${table}" in the warehouse; known: ${[...this.catalog.keys()].sort().join(', ')}`,
      );
    }
    plan = planTable(info, this.promotedFields(table));
    this.plans.set(table, plan);
    return plan;
  }

  private reader(): RowReader {
    return rowReader(this.connection);
  }

  /**
   * A write of bookkeeping, after the calls before it, in one transaction whose COMMIT waits for the lease's fence, as a
   * slice load's does; without a fence, the work alone.
   */
  private fenced<T>(work: () => Promise<T>): Promise<T> {
    return this.serial(() => {
      const fence = this.options.fence;
      return fence ? inTransaction(this.connection, { fence }, work) : work();
    });
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the warehouse is closed'));
    if (this.faulted) return Promise.reject(this.faulted);
    const guarded = (): Promise<T> => {
      if (this.faulted) return Promise.reject(this.faulted);
      return work().catch((error: unknown) => {
        const fault = writerFaultOf(error, this.path);
        if (!fault) throw error;
        this.faulted ??= fault;
        throw this.faulted;
      });
    };
    const next = this.queue.then(guarded, guarded);
    this.queue = next.catch(() => undefined);
    return next;
  }
}

/**
 * DuckDB's instance of the file. Told apart so the lease knows whether waiting can help: another process holding the
 * lock (DatabaseLockedError) may let go, a writer fault will not.
 */
async function createInstance(path: string, settings: Record<string, string> | undefined): Promise<DuckDBInstance> {
  try {
    return await DuckDBInstance.create(path, settings);
  } catch (error) {
    if (isLockConflict(error)) throw new DatabaseLockedError(path, error as Error);
    throw writerFaultOf(error, path) ?? error;
  }
}

/** Opens (creating if needed) and migrates the working database file. */
export function openWarehouse(workingPath: string, options: WarehouseOptions = {}): Promise<Warehouse> {
  return Warehouse.open(workingPath, options);
}
