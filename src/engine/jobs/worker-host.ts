import { hostname } from 'node:os';
import { Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { KeyAnswers, createApiClient, type ApiClient, type ApiRequestEvent } from '../../api/index.js';
import { todayBy, type DayClock } from '../../days.js';
import type { Logger } from '../../log.js';
import type { FreshnessRow, QueueCounts, SyncMetrics } from '../../ops/sync-metrics.js';
import { DatabaseLockedError } from '../../warehouse/file/database-locked-error.js';
import { duckdbSettings } from '../../warehouse/file/duckdb-budget.js';
import { ReopenTrigger, reopenThresholdBytes } from '../../warehouse/file/memory-release.js';
import { workingPathFor } from '../../warehouse/paths.js';
import { openWarehouse, type Warehouse, type WarehouseOptions } from '../../warehouse/warehouse.js';
import type { DriftEntry } from '../../warehouse/schema-drift.js';
import { WarehouseError } from '../../warehouse/warehouse-error.js';
import { isWriterFault, type WriterFault } from '../../warehouse/file/writer-fault.js';
import { isFinishedRunStatus } from '../../vocabulary.js';
import { Availability } from '../fetch/availability.js';
import { outageToleranceMs } from '../fetch/outage-memo.js';
import { fetchConcurrencyFor, fetchWorkerSlots, redisRoundTripMs } from '../fetch/fetch-concurrency.js';
import { commitBatchFor } from '../writer/waiting-commits.js';
import { fetchProcessor } from '../fetch/fetch-processor.js';
import { FetchThreadPool } from '../fetch/fetch-thread-pool.js';
import { loadProcessor } from '../writer/load-processor.js';
import type { DescribeBackfill } from '../plan/skip-complete-backfill.js';
import { FETCH_QUEUE, LOAD_QUEUE, openQueues, writerLeaseKey, type Queues } from './queues.js';
import { connectRedis } from '../redis/redis.js';
import {
  claimPrefixWarehouse,
  failRunsOfRefusedFile,
  OtherWarehouseFileError,
  refuseOtherWarehouse,
  writtenFile,
} from '../writer/prefix-warehouse.js';
import { redisKeys } from '../../redis-keys.js';
import { RequestTallies } from '../run/request-tally.js';
import { RunStore } from '../run/run-store.js';
import { pickUpStuckPlans } from '../run/held-slices.js';
import { fetchBudget, resumeEachWindow } from '../fetch/quota-parking.js';
import type { RequestQuota } from '../../api/rate/request-quota.js';
import type { Notifier } from '../../notify/index.js';
import { claimRunEndNotice, sendRunEndNotices } from '../run/run-notices.js';
import {
  isRedisConnectionError,
  logRedisOutages,
  redisFullFault,
  watchRedisForFaults,
  type RedisFullError,
  type RedisOutageLog,
} from '../redis/redis-fault-watch.js';
import { WriterLease } from '../writer/writer-lease.js';
import { checkReadiness, PROBE_LIMIT_MS, type Readiness } from './readiness.js';
import { within } from '../../within.js';
import { syncedStreams, syncsBrand, type Config } from '../../configuration.js';

/** How long closing a BullMQ worker may take (past the stop deadline, for the fetch worker) before it is dropped. */
const WORKER_CLOSE_LIMIT_MS = 10_000;
const REDIS_DOWN_CLOSE_LIMIT_MS = 1_000;
/** How long a stop waits for Redis's answer, when the outage log says it is away, before it waits for no job. */
const STOP_ANSWER_MS = 2_000;

/**
 * Opens failed in a row on a file another process holds, after which `sync` or `backfill` gives up: about three lease
 * intervals (writer-lease.ts), enough for a hand-over between bvsync processes, short of waiting on another program.
 */
const LOCKED_OPENS_BEFORE_GIVING_UP = 3;

/**
 * How long a command keeps trying while another bvsync or an exiting process holds the file: a writer that lost the
 * lease lets go only after its load job ends and DuckDB's close checkpoints. One of another prefix never does.
 */
const BVSYNC_HOLDER_PATIENCE_MS = 3 * WORKER_CLOSE_LIMIT_MS;

/** Times a job may be found stalled (its process died or froze while running it) and run again before it fails. */
const MAX_STALLS_PER_JOB = 5;

/** This process holds the writer lease but cannot open the working database, and waiting longer will not help. */
export class WriterUnavailableError extends Error {
  readonly code = 'writer_unavailable';
  constructor(databasePath: string, cause: Error) {
    // The cause says why in its own words: another program holding the file (DatabaseLockedError) says so; a folder
    // that cannot be created names the folder and the OS reason; a file that is not a database says that.
    super(`cannot open the working database beside ${databasePath}: ${cause.message}`, { cause });
    this.name = 'WriterUnavailableError';
  }
}

/** A fault of the machine that ends this process's work: every later job would fail the same way. */
type HostFault = WriterFault | RedisFullError;

export interface WorkerHostOptions {
  config: Config;
  redisUrl: string;
  log: Logger;
  /** Fetch jobs at once in this process; default `sync.fetchConcurrency`. */
  fetchConcurrency?: number;
  /** Threads that read the fetch jobs' slices, 0: on the main thread; default `sync.fetchThreads`. */
  fetchThreads?: number;
  /** Take part in the writer lease (load when holding it); default true. */
  load?: boolean;
  /** Writer lease time to live (ms); default 15 s. */
  leaseTtlMs?: number;
  /** BullMQ's stalled-job check interval and lock duration (ms); defaults 30 s. Tests shorten them. */
  stalledIntervalMs?: number;
  lockDurationMs?: number;
  /** Most small slices committed in one transaction; default COMMIT_BATCH_SLICES (src/engine/writer/waiting-commits.ts), 1: each alone. */
  commitBatchSlices?: number;
  /** Told about requests, slices and rows as they happen (`bvsync worker --metrics-port`); default none. */
  metrics?: SyncMetrics;
  /** Tells people of runs this process finalizes that fail or end incomplete (`notify.webhooks`); default none. */
  notifier?: Notifier;
  /** With a notifier: after how long without Redis the host tells of a `machine_fault`; default none (not watched). */
  redisFaultAfterMs?: number;
  /** How long `stop()` lets running jobs finish before aborting them (ms), when not given to it; default 30 s. */
  stopDeadlineMs?: number;
  /** The clock the request budget's windows are read by (ms since the epoch); default `Date.now`. Tests share the simulator's. */
  clock?: () => number;
  /** Options of the working database when this process becomes the writer; default none. */
  warehouse?: WarehouseOptions;
  /** Words the backfills the engine advises in its logs as commands (the CLI's); default their fields alone. */
  describeBackfill?: DescribeBackfill;
  /** Opens the working database with the options this host gives it (the lease's fence too); default openWarehouse. */
  openWarehouse?: (path: string, options: WarehouseOptions) => Promise<Warehouse>;
  /** Today, UTC (`BVSYNC_TODAY` through the CLI). */
  today?: DayClock;
}

/**
 * The workers of one bvsync process: fetch jobs always, and the load queue while this process holds the DuckDB
 * writer lease. `bvsync worker`, `sync` and `backfill` all run one, so any mix of them shares one writer.
 */
export class WorkerHost {
  private readonly abort = new AbortController();
  /** Aborted as the stop begins: the API client's calls stop waiting out 429s (see Transport's `stopWaiting`). */
  private readonly stopWaiting = new AbortController();
  readonly tallies = new RequestTallies();
  private connection!: Redis;
  /** Says once per outage that Redis stopped answering, for this connection and each worker's. */
  private redisOutage!: RedisOutageLog;
  private queues!: Queues;
  private client!: ApiClient;
  /** The fetch queue's workers, sharing this process's fetch concurrency (fetch-concurrency.ts, fetchWorkerSlots). */
  private readonly fetchWorkers: Worker[] = [];
  private fetchProcess: ConstructorParameters<typeof Worker>[1] | undefined;
  private fetchThreads: FetchThreadPool | undefined;
  /** What every call of this process, on any fetch thread, heard on the key: see src/engine/fetch/availability.ts. */
  private readonly heard = new KeyAnswers();
  private lease: WriterLease | undefined;
  /** The key's request budget per window, when `api.dailyRequestBudget` is set; and the timer that resumes its waiting slices. */
  private quota: RequestQuota | undefined;
  private stopResuming: (() => void) | undefined;
  private loadWorker: Worker | undefined;
  /** Each worker's own Redis connection: dropping a worker stuck closing must not cut the lease's, the queues' or the other worker's. */
  private readonly workerConnections = new Map<Worker, Redis>();
  private warehouse: Warehouse | undefined;
  private stopping: Promise<void> | undefined;
  private stopRedisWatch: (() => void) | undefined;
  private redisAtStop = true;
  /** Told by stop()'s caller that Redis does not answer. */
  private redisKnownGone = false;
  /** BullMQ workers whose close was given up on. */
  private lateCloses = 0;

  /** A full disk, an invalidated database or a full Redis that ended this process's work (stopOn). */
  private writerFault: HostFault | undefined;
  private readonly faultSeen: { promise: Promise<HostFault>; resolve: (fault: HostFault) => void } = (() => {
    let resolve!: (fault: HostFault) => void;
    const promise = new Promise<HostFault>((settle) => (resolve = settle));
    return { promise, resolve };
  })();

  /** Opens of the working database that failed in a row while holding the lease, the last reason, and when the first failed. */
  private writerFailures = 0;
  private lastWriterError: Error | undefined;
  private writerFailingSince = 0;
  /** A holder that may let go held the file in this run of failures: once exited, /proc no longer names it. */
  private letGoExpected = false;

  constructor(private readonly options: WorkerHostOptions) {}

  get isWriter(): boolean {
    return this.loadWorker !== undefined;
  }

  async start(): Promise<void> {
    const { config, log } = this.options;
    const prefix = config.redisPrefix;
    this.connection = connectRedis(this.options.redisUrl);
    this.redisOutage = logRedisOutages(
      this.connection,
      redisKeys(prefix).heartbeat,
      log,
      'jobs wait until Redis answers',
    );
    if (this.options.notifier && this.options.redisFaultAfterMs !== undefined) {
      this.stopRedisWatch = watchRedisForFaults(
        this.redisOutage,
        this.options.redisUrl,
        this.options.redisFaultAfterMs,
        this.options.notifier,
      );
    }
    // Before any worker starts: one that took jobs would fetch, and once the writer, load, the other file's runs.
    if (this.options.load !== false) await refuseOtherWarehouse(this.connection, prefix, config.db);
    this.queues = openQueues(this.connection, prefix);
    const { budget, quota } = fetchBudget(config, this.connection, log, this.options.clock);
    this.quota = quota;
    if (this.quota) this.stopResuming = resumeEachWindow(this.connection, prefix, this.queues, this.quota.clock, log);
    const onRequest = (event: ApiRequestEvent): void => {
      // Every thread's calls come through here: whether the API answered anything lately is the process's to say.
      this.heard.observe(event);
      this.tallies.onRequest(event);
      this.options.metrics?.request(event);
      if (event.outcome === 'rate_limited' && event.retryAfterMs) this.pauseFetching(event.retryAfterMs);
    };
    // A 429 is waited out inside the call that met it, so the pages its slice already read are kept; meanwhile the
    // whole key is blocked in the shared budget and the fetch queue starts no new slice (see pauseFetching).
    this.client = createApiClient(config.api, {
      budget,
      logger: log,
      onRequest,
      signal: this.abort.signal,
      stopWaiting: this.stopWaiting.signal,
      retryRateLimited: true,
      unansweredForMs: outageToleranceMs(config.sync),
    });
    const threads = this.options.fetchThreads ?? config.sync.fetchThreads;
    if (threads > 0) {
      this.fetchThreads = new FetchThreadPool({
        threads,
        setup: {
          config,
          redisUrl: this.options.redisUrl,
          logLevel: log.level,
          connections: Math.max(1, Math.ceil(config.api.connections / threads)),
        },
        log,
        onRequest,
        signal: this.abort.signal,
        stopWaiting: this.stopWaiting.signal,
      });
    }
    this.fetchProcess = fetchProcessor({
      redis: this.connection,
      prefix,
      queues: this.queues,
      client: this.client,
      sync: config.sync,
      tallies: this.tallies,
      log,
      signal: this.abort.signal,
      stopping: () => this.stopping !== undefined,
      quota: this.quota,
      metrics: this.options.metrics,
      availability: new Availability(this.connection, prefix, config.api.apiKey ?? '', this.heard, config.sync),
      reader: this.fetchThreads,
    });
    // The whole concurrency goes to one worker until the round trip to Redis is known.
    this.addFetchWorker(this.options.fetchConcurrency ?? config.sync.fetchConcurrency);
    void this.fitFetchConcurrency();
    if (this.options.load !== false) {
      this.lease = new WriterLease(this.connection, {
        key: writerLeaseKey(prefix),
        fenceKey: redisKeys(prefix).writerFence,
        writes: writtenFile(config.db),
        ttlMs: this.options.leaseTtlMs,
        onAcquired: () => this.becomeWriter(),
        // A file another bvsync or an exiting process holds is tried again promptly, to see it let go in time.
        retryPromptly: (error) => this.holderMayLetGo(error),
        onLost: () => {
          // Said, so a worker that stopped loading (Redis restarted empty, a stall past the lease's ttl) is not silent.
          if (!this.stopping)
            log.warn(
              { db: writtenFile(config.db) },
              'lost the DuckDB writer lease: loading stops until this or another process takes it again',
            );
          return this.stopWriting();
        },
      });
      await this.lease.start();
    }
  }

  /** A BullMQ worker passes on Redis's outage, which the host says once (test/reliability/redis.int.test.ts "says once"). */
  private logWorkerError(error: Error, message: string): void {
    const full = redisFullFault(error, this.options.redisUrl);
    if (full) return this.stopOn(full);
    const outage = this.redisOutage.down || isRedisConnectionError(error);
    this.options.log[outage ? 'debug' : 'warn']({ err: error.message }, message);
  }

  private addFetchWorker(concurrency: number): void {
    const worker = this.startWorker(FETCH_QUEUE, this.fetchProcess!, concurrency);
    worker.on('error', (error) => this.logWorkerError(error, 'fetch worker error'));
    this.fetchWorkers.push(worker);
  }

  private roundTrip: Promise<number> | undefined;

  /** How far Redis is, timed once for the host: the fetch workers and the writer's batches both fit it. */
  private roundTripToRedis(): Promise<number> {
    this.roundTrip ??= redisRoundTripMs(this.connection).catch(() => 0);
    return this.roundTrip;
  }

  /**
   * When Redis is far (fetch-concurrency.ts), raises the fetch concurrency, unless the host was given one, and splits it
   * over several workers that fill their slots side by side. A Redis that does not answer changes nothing.
   */
  private async fitFetchConcurrency(): Promise<void> {
    const { config, log } = this.options;
    const roundTripMs = await this.roundTripToRedis();
    const concurrency =
      this.options.fetchConcurrency ??
      fetchConcurrencyFor(config.sync.fetchConcurrency, roundTripMs, config.sync.maxFetchConcurrency);
    const [first, ...more] = fetchWorkerSlots(concurrency, roundTripMs);
    const worker = this.fetchWorkers[0];
    if (!worker || first === undefined || this.stopping) return;
    if (worker.concurrency === first && more.length === 0) return;
    worker.concurrency = first;
    for (const slots of more) this.addFetchWorker(slots);
    const redisRoundTripMs = Math.round(roundTripMs * 10) / 10;
    log.info(
      { redisRoundTripMs, fetchConcurrency: concurrency, fetchWorkers: more.length + 1 },
      'Redis is far: more fetch jobs run at once, taken by several workers, to keep the API busy',
    );
  }

  /**
   * Until when the fetch queue waits out the longest rate limit this process met (ms since the epoch), so a command's
   * progress line can tell a wait from a stall.
   */
  rateLimitedUntil = 0;

  /** A 429 pauses the fetch queue for its Retry-After: no new slice starts anywhere until the key may call again. */
  private pauseFetching(ms: number): void {
    this.rateLimitedUntil = Math.max(this.rateLimitedUntil, Date.now() + ms);
    this.options.metrics?.rateLimitedPause(ms);
    this.queues.fetch
      .rateLimit(ms)
      .catch((error: Error) => this.options.log.warn({ err: error.message }, 'could not pause the fetch queue'));
  }

  /**
   * A BullMQ worker on a connection of its own: BullMQ's `disconnect()`, the way out of a close that hangs, ends the
   * connection it was given, which must not be the lease's or the queues' (test/engine/worker-host-stop.int.test.ts).
   */
  private startWorker(queue: string, processor: ConstructorParameters<typeof Worker>[1], concurrency: number): Worker {
    const connection = this.connection.duplicate();
    this.redisOutage.watch(connection);
    const worker = new Worker(queue, processor, {
      connection,
      prefix: this.options.config.redisPrefix,
      concurrency,
      // Recorded on each job as `processedBy`, so the dashboard shows which machine and process ran a slice.
      name: `${hostname()}/${process.pid}`,
      // Every bvsync job is safe to replay (a commit is one transaction, finalize is idempotent), so stalls may repeat;
      // the bound only stops a job that kills its process every time.
      maxStalledCount: MAX_STALLS_PER_JOB,
      // BullMQ treats an explicit undefined as a value, so only the settings given are passed.
      ...(this.options.stalledIntervalMs ? { stalledInterval: this.options.stalledIntervalMs } : {}),
      ...(this.options.lockDurationMs ? { lockDuration: this.options.lockDurationMs } : {}),
    });
    this.workerConnections.set(worker, connection);
    return worker;
  }

  private async becomeWriter(): Promise<void> {
    const { config, log } = this.options;
    // Throws while another process still has the file open; the lease is handed back and tried again. Logged, because
    // the lease swallows the error and an open that keeps failing would otherwise leave the load queue silent.
    const lease = this.lease!;
    try {
      // Every commit of this holding checks the lease's fencing token before COMMIT (src/warehouse/load/commit-fence.ts).
      this.warehouse = await (this.options.openWarehouse ?? openWarehouse)(workingPathFor(config.db), {
        duckdb: duckdbSettings(config.warehouse),
        lake: config.publish.parquet,
        reopen: new ReopenTrigger(reopenThresholdBytes(config.warehouse)),
        onReopen: (reopen) => {
          log.debug(reopen, 'reopened DuckDB to hand back the memory it kept');
          this.options.metrics?.warehouseReopened?.(reopen.ms);
        },
        ...this.options.warehouse,
        fence: lease.fence(),
      });
      await this.refuseOtherFile(this.warehouse);
      this.writerFailures = 0;
      this.lastWriterError = undefined;
      this.letGoExpected = false;
    } catch (error) {
      this.countWriterFailure(error as Error);
      log.warn(
        { err: (error as Error).message, failures: this.writerFailures },
        'took the writer lease but could not open the working database; handing it back',
      );
      throw error;
    }
    await this.raiseFenceAboveFile(this.warehouse, lease);
    await this.promoteFields(this.warehouse);
    const batch = commitBatchFor(await this.roundTripToRedis());
    // Opened while the host stops (the lease was taken just before): stop() closes it through the lease's onLost; a load
    // worker started now would take jobs the stop has to cut short.
    if (this.stopping) return;
    this.loadWorker = this.startWorker(
      LOAD_QUEUE,
      loadProcessor({
        redis: this.connection,
        prefix: config.redisPrefix,
        queues: this.queues,
        runs: new RunStore(this.connection, config.redisPrefix),
        warehouse: this.warehouse,
        config,
        log,
        metrics: this.options.metrics,
        commitBatchSlices: this.options.commitBatchSlices ?? batch.slices,
        commitBatchRows: batch.rows,
        onWriterFault: (fault) => this.stopOn(fault),
        notifier: this.options.notifier,
        today: this.options.today,
        stopSignal: this.stopWaiting.signal,
        describeBackfill: this.options.describeBackfill,
      }),
      1,
    );
    this.loadWorker.on('error', (error) => this.logWorkerError(error, 'load worker error'));
    this.loadWorker.on('failed', (job, error) => {
      log.error({ job: job?.name, id: job?.id, err: error.message }, 'load job failed');
      void this.failRunOfLastAttempt(job, error).catch((failure: Error) =>
        log.warn({ err: failure.message }, 'could not mark the run failed'),
      );
    });
    log.info({ db: this.warehouse.path }, 'holding the DuckDB writer lease');
    // A run left `planning` without its plan job (its command or scheduler stopped in between) is planned now, not left.
    await pickUpStuckPlans(this.queues, new RunStore(this.connection, config.redisPrefix), log).catch((error: Error) =>
      log.warn({ err: error.message }, 'could not look for runs left planning; the next writer looks again'),
    );
  }

  /**
   * A full disk, invalidated database or full Redis fails every later job, so this process stops taking jobs, closes the
   * database and quits as writer; jobs wait for the next process. A command ends with it (`writerProblem`); a worker exits.
   */
  private stopOn(fault: HostFault): void {
    if (this.writerFault) return;
    this.writerFault = fault;
    const redisFull = fault.code === 'redis_full';
    this.options.log.error(
      { err: fault.message, code: fault.code },
      redisFull
        ? 'Redis is full: this process stops taking jobs'
        : 'the working database cannot be written: this process stops loading',
    );
    if (redisFull) for (const worker of this.fetchWorkers) void worker.pause(true).catch(() => undefined);
    void this.options.notifier?.failed(fault);
    this.lease?.retire();
    void this.loadWorker?.pause(true).catch(() => undefined);
    void this.stopWriting().catch((error: Error) =>
      this.options.log.warn({ err: error.message }, 'could not close the working database'),
    );
    this.faultSeen.resolve(fault);
  }

  /** Resolves with the fault that ended this process's work, if one does. */
  get writerFaulted(): Promise<HostFault> {
    return this.faultSeen.promise;
  }

  private countWriterFailure(error: Error): void {
    if (this.writerFailures === 0) this.writerFailingSince = performance.now();
    this.writerFailures += 1;
    this.lastWriterError = error;
    this.letGoExpected ||= error instanceof DatabaseLockedError && error.holderMayLetGo;
  }

  /** Whether the file's holder may let go soon, or did in this run of failures (test/e2e/setup-errors.int.test.ts). */
  private holderMayLetGo(error: unknown): boolean {
    return error instanceof DatabaseLockedError && (error.holderMayLetGo || this.letGoExpected);
  }

  /** Forgets and closes a working database just opened, whose opening failed a later step. */
  private async dropWarehouse(warehouse: Warehouse): Promise<void> {
    this.warehouse = undefined;
    await warehouse.close().catch(() => undefined);
  }

  /**
   * Under the raised fence, ahead of any load, makes `sync.promote` hold, so loaded rows fill its columns. A promotion
   * the file cannot take is a failed open: a command stops with the error naming the key (docs/schema-drift.md).
   */
  private async promoteFields(warehouse: Warehouse): Promise<void> {
    const { config, log } = this.options;
    try {
      const promoted = await warehouse.promote(config.sync.promote);
      if (!promoted.added.length && !promoted.moved) return;
      log.info(
        { added: promoted.added, rows: promoted.moved },
        'moved the fields of sync.promote out of _extra into their columns',
      );
      // Analysts see the columns now, not after the next run; whole, as the publish journal records rows, not columns.
      await warehouse.publish(config.db, { incremental: false });
    } catch (error) {
      await this.dropWarehouse(warehouse);
      this.countWriterFailure(error as Error);
      log.error(
        { err: (error as Error).message },
        'could not make sync.promote hold in the working database; handing the writer lease back',
      );
      throw error;
    }
  }

  /**
   * The lease's token made larger than any the file's commits carry, so the tokens in the file only grow even after
   * Redis lost its counter (test/engine/commit-fence.int.test.ts). A lease lost meanwhile closes the file again.
   */
  private async raiseFenceAboveFile(warehouse: Warehouse, lease: WriterLease): Promise<void> {
    const raised = await warehouse
      .highestFenceToken()
      .then((highest) => lease.raiseTokenAbove(highest))
      .catch(() => false);
    if (raised) return;
    await this.dropWarehouse(warehouse);
    throw new Error('the DuckDB writer lease was lost while the working database was being opened');
  }

  /**
   * Closes and refuses (OtherWarehouseFileError) a file not holding the prefix's committed slices: loaded, it would be
   * published as the whole warehouse. Its unfinished runs end failed; a prefix's first writer records its file.
   */
  private async refuseOtherFile(warehouse: Warehouse): Promise<void> {
    const { config, log } = this.options;
    try {
      if (warehouse.id === undefined)
        throw new Error(`${warehouse.path} has no warehouse id (migration 016 is not applied)`);
      await claimPrefixWarehouse(this.connection, config.redisPrefix, { id: warehouse.id, path: warehouse.path });
    } catch (error) {
      await this.dropWarehouse(warehouse);
      if (error instanceof OtherWarehouseFileError) {
        const ended = await failRunsOfRefusedFile(this.connection, config.redisPrefix, this.queues, config.db, error);
        log.error({ db: warehouse.path, runs: ended }, error.message);
      }
      throw error;
    }
  }

  /**
   * Why a command should stop waiting to become the writer (no retry would help, or another bvsync held it too long).
   * Undefined while waiting may help. `bvsync worker` ignores it and keeps trying, since an operator may fix the cause.
   */
  writerProblem(): WriterUnavailableError | HostFault | WarehouseError | undefined {
    if (this.writerFault) return this.writerFault;
    const cause = this.lastWriterError;
    if (!cause) return undefined;
    // A full disk met by the open (a log replayed into no room) says everything itself.
    if (isWriterFault(cause)) return cause;
    // A sync.promote the file cannot take names its key itself: the config's to change (exit 2), not the file's.
    if (cause instanceof WarehouseError && cause.code === 'promote_invalid') return cause;
    if (cause instanceof DatabaseLockedError) {
      const tries = this.writerFailures < LOCKED_OPENS_BEFORE_GIVING_UP;
      const closing =
        this.holderMayLetGo(cause) && performance.now() - this.writerFailingSince < BVSYNC_HOLDER_PATIENCE_MS;
      if (tries || closing) return undefined;
    }
    return new WriterUnavailableError(this.options.config.db, cause);
  }

  /**
   * A load job failed for good leaves its run unable to finish and its waiters waiting, so the run is marked failed
   * with the job's reason, in Redis (ending the wait) and `_sync_runs`. Slices already committed stay, and are right.
   */
  private async failRunOfLastAttempt(job: Job | undefined, error: Error): Promise<void> {
    if (!job) return;
    const lastAttempt = error.name === 'UnrecoverableError' || job.attemptsMade >= (job.opts.attempts ?? 1);
    const runId = (job.data as { runId?: unknown }).runId;
    if (!lastAttempt || typeof runId !== 'string') return;
    const runs = new RunStore(this.connection, this.options.config.redisPrefix);
    const meta = await runs.get(runId);
    if (!meta || isFinishedRunStatus(meta.status)) return;
    const reason = `the ${job.name} job ${job.id} failed for good: ${error.message}. The run cannot finish; its committed slices are kept. Fix the cause and run the same command again`;
    // DuckDB first: a waiting command ends when Redis says failed, and may stop this process at once (the test of it
    // does), which would leave `_sync_runs` saying running.
    await this.warehouse?.finishRun(runId, 'failed').catch(() => undefined);
    const ended = { ...meta, status: 'failed' as const, error: reason, finishedAt: new Date().toISOString() };
    const states = await this.warehouse?.sliceStates({ runId, status: 'failed' }).catch(() => undefined);
    const notice = await claimRunEndNotice({ runs, notifier: this.options.notifier, meta: ended, states }).catch(
      () => undefined,
    );
    await runs.update(runId, { status: 'failed', error: reason, finishedAt: ended.finishedAt });
    this.options.metrics?.runFinished(meta.kind, 'failed');
    sendRunEndNotices(this.options.notifier, notice, undefined, this.options.log);
  }

  /** Whether this process can do its part now, for `GET /readyz` (src/engine/jobs/readiness.ts says what each check means). */
  readiness(): Promise<Readiness> {
    return checkReadiness({
      redis: this.connection,
      mayWrite: this.options.load !== false,
      holdsLease: this.lease?.isHeld ?? false,
      warehouse: this.warehouse,
      writerProblem: this.writerProblem(),
      stopping: this.stopping !== undefined,
    });
  }

  /** Jobs of each queue by state, for metrics scraped at any time; none while Redis is away (test/ops/health.int.test.ts). */
  async queueCounts(): Promise<Record<string, QueueCounts>> {
    // None while Redis is away, as /readyz does: a scrape waiting on the reconnect would hide every other metric.
    if (!this.queues || this.connection.status !== 'ready') return {};
    const counts = await within(
      Promise.all([this.queues.fetch.getJobCounts(), this.queues.load.getJobCounts()]),
      PROBE_LIMIT_MS,
    );
    if (counts.error) this.options.log.debug({ err: counts.error.message }, 'queue depths left out of this scrape');
    if (!counts.value) return {};
    const [fetch, load] = counts.value;
    return { [FETCH_QUEUE]: fetch, [LOAD_QUEUE]: load };
  }

  /**
   * The newest complete past day of each brand and stream the config keeps in step, so a brand or stream taken out of it
   * raises no stale alert; empty unless this process holds the writer lease (test/ops/metrics.int.test.ts).
   */
  async freshness(): Promise<FreshnessRow[]> {
    if (!this.warehouse) return [];
    const { config } = this.options;
    const streams = syncedStreams(config);
    const rows = await this.warehouse.newestCompletePastDays(todayBy(this.options.today));
    return rows.filter((row) => syncsBrand(config, row.brand) && streams.has(row.stream));
  }

  /** The working file's `_schema_drift` entries while this process holds the writer lease; none otherwise. */
  async schemaDrift(): Promise<DriftEntry[]> {
    return this.warehouse ? this.warehouse.schemaDrift() : [];
  }

  private async stopWriting(): Promise<void> {
    const worker = this.loadWorker;
    const warehouse = this.warehouse;
    this.loadWorker = undefined;
    this.warehouse = undefined;
    if (worker) await this.closeWithin(worker, Date.now() + this.closeLimitMs(), 'load');
    await warehouse?.close();
  }

  /**
   * How long a BullMQ worker's close may take: a worker's close reports its jobs' ends to Redis, so with Redis away it
   * cannot end, and waiting the whole limit only delays a command that has already said why it stops.
   */
  private closeLimitMs(): number {
    return this.redisLooksUp() ? WORKER_CLOSE_LIMIT_MS : REDIS_DOWN_CLOSE_LIMIT_MS;
  }

  /** Redis is connected and no caller has found it not answering (a frozen one keeps its connection looking up). */
  private redisLooksUp(): boolean {
    return !this.redisKnownGone && this.connection?.status === 'ready';
  }

  /**
   * Closes a BullMQ worker, waiting at most until `giveUpAt`, since with Redis gone a close can wait forever.
   * Past the limit its connections are dropped; a job it held runs again after BullMQ's stalled check.
   */
  private async closeWithin(worker: Worker, giveUpAt: number, name: string): Promise<void> {
    const { timedOut } = await within(worker.close(), Math.max(0, giveUpAt - Date.now()));
    if (timedOut) {
      this.lateCloses += 1;
      this.options.log.warn(
        { worker: name },
        'a BullMQ worker did not close in time (Redis restarted?); dropping its connections',
      );
      // Not awaited: the disconnect of a connection stuck reconnecting may never settle either.
      void worker.disconnect().catch(() => undefined);
    }
    // BullMQ leaves a connection it was given open.
    this.workerConnections.get(worker)?.disconnect();
    this.workerConnections.delete(worker);
  }

  /**
   * Whether Redis answered everything stop() asked of it (the workers' closes, the lease's release): otherwise some
   * job's end or the lease never reached it, which to the engine is a crash, however quietly the process ends.
   */
  get stoppedWithRedis(): boolean {
    return this.redisAtStop;
  }

  /**
   * Stops taking jobs, lets running ones finish until the deadline, then aborts the rest; safe to call twice. With Redis
   * away (`redisGone`, or no answer at the stop) no job is waited for: none could record its end (redis-frozen.int).
   */
  stop(deadlineMs = this.options.stopDeadlineMs ?? 30_000, options: { redisGone?: boolean } = {}): Promise<void> {
    if (options.redisGone) this.redisKnownGone = true;
    this.stopping ??= (async () => {
      if (this.redisOutage?.down && !(await this.redisOutage.answersWithin(STOP_ANSWER_MS))) this.redisKnownGone = true;
      if (this.redisKnownGone) deadlineMs = 0;
      this.stopRedisWatch?.();
      this.redisOutage?.stop();
      // Renewed while the fetch jobs drain, never taken: a process on its way out does not become the writer.
      this.lease?.retire();
      this.stopResuming?.();
      // Slices being read finish; those waiting out a 429 (or the key's budget it blocked) go back to the queue.
      this.stopWaiting.abort();
      const timer = setTimeout(() => this.abort.abort(), deadlineMs);
      // Only this stop's closes count: one late while Redis was away earlier (the lease lost) was ridden out since
      // (test/reliability/redis.int.test.ts, "with its data lost").
      const lateBefore = this.lateCloses;
      let leaseAnswered = false;
      // The load worker takes no new job while the fetch worker drains, so no publish begins near the deadline;
      // the job it runs finishes, and what waits is the next writer's.
      void this.loadWorker?.pause(true).catch(() => undefined);
      try {
        const giveUpAt = Date.now() + deadlineMs + this.closeLimitMs();
        await Promise.all(this.fetchWorkers.map((worker) => this.closeWithin(worker, giveUpAt, 'fetch')));
        leaseAnswered = (await this.lease?.stop(this.redisKnownGone ? 0 : undefined)) ?? true;
      } finally {
        clearTimeout(timer);
        this.redisAtStop = leaseAnswered && this.lateCloses === lateBefore && this.redisLooksUp();
        this.abort.abort();
        await this.fetchThreads?.close();
        await this.client?.close().catch(() => {});
        await this.queues?.close().catch(() => {});
        this.connection?.disconnect();
        // Notices of the last runs it finalized are sent before the process goes, within notify.deliverySeconds.
        await this.options.notifier?.settle();
      }
    })();
    return this.stopping;
  }
}
