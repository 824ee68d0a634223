import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../../log.js';
import { selectStreams } from '../../streams/registry.js';
import { minDay } from '../../days.js';
import { isFinishedRunStatus } from '../../vocabulary.js';
import { enqueuePlan } from '../jobs/enqueue.js';
import { isRunGone } from './run-gone.js';
import { openQueues } from '../jobs/queues.js';
import { connectForCommand, connectRedis, explainFrozen } from '../redis/redis.js';
import { DEFAULT_REDIS_OUTAGE_MS, RedisGoneError, RedisOutageWatch } from '../redis/redis-outage.js';
import { redisFullFault } from '../redis/redis-fault-watch.js';
import { refuseOtherWarehouse, writtenFile } from '../writer/prefix-warehouse.js';
import { RunStore, type RunMeta, type StreamCounters } from './run-store.js';
import { WorkerHost, type WorkerHostOptions } from '../jobs/worker-host.js';
import type { Notifier } from '../../notify/index.js';
import { claimRunEndNotice, sendRunEndNotices } from './run-notices.js';
import type { Config } from '../../configuration.js';

export interface StartRunOptions extends Pick<RunMeta, 'kind' | 'brands' | 'today' | 'skipComplete' | 'heal'> {
  config: Config;
  redisUrl: string;
  log: Logger;
  /** Stream names; empty means every stream. */
  streams: string[];
  /** Backfill window (both included). */
  from?: string;
  to?: string;
  /** A fixed id makes starting the same run twice a no-op (scheduled slots); default a new one. */
  runId?: string;
  /** This process may load the run (its worker takes part in the writer lease); default false. */
  load?: boolean;
  /** Wait for a Redis that is away, as a scheduler's tick does; default: each command fails past 10 s unanswered. */
  waitForRedis?: boolean;
}

export interface EnqueuedRun {
  runId: string;
  /** A new run was recorded (false: the scheduled slot's run existed, or an unfinished run of the window exists). */
  created: boolean;
  /** An unfinished run of the same kind, window, brands and streams is the run: nothing new planned. */
  attached: boolean;
  meta: RunMeta;
}

/**
 * Records a run and enqueues its first plan job for the lease holder. One run per window: an unfinished run of the
 * same window (an interrupted or parallel command) is returned to attach to. Scheduled runs use slot-derived ids.
 */
export async function enqueueRun(options: StartRunOptions): Promise<EnqueuedRun> {
  const runId =
    options.runId ??
    `${options.kind}-${new Date()
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z')}-${randomUUID().slice(0, 6)}`;
  // A cron's `sync --enqueue-only` has nobody to stop it: it fails on a frozen Redis (test/e2e/redis-frozen.int.test.ts).
  const connection = options.waitForRedis ? connectRedis(options.redisUrl) : connectForCommand(options.redisUrl);
  // Its caller says when Redis is away (a scheduler's tick waits on it): an error with no listener is printed raw.
  connection.on('error', (error) => options.log.debug({ err: error.message }, 'redis connection error; reconnecting'));
  try {
    // Opened first: BullMQ's look at the server shares a round trip with the check below.
    const queues = openQueues(connection, options.config.redisPrefix);
    try {
      // Before the run is recorded: a file its writer refuses leaves no failed run (warehouse-identity.int.test.ts).
      await refuseOtherWarehouse(connection, options.config.redisPrefix, options.config.db, { load: options.load });
      const runs = new RunStore(connection, options.config.redisPrefix);
      const meta = newRunMeta(runId, options);
      if (options.runId) {
        const created = await runs.create(meta);
        const current = created ? meta : ((await runs.get(runId)) ?? meta);
        // Also for a run still planning: the scheduler that recorded it may have died before enqueueing its plan.
        // The job id makes this a no-op when the plan is there.
        if (created || current.status === 'planning') await enqueuePlan(queues, { runId, phase: 1 });
        return { runId, created, attached: false, meta: current };
      }
      const windowKey = runs.windowKey(runWindowIdentity({ ...options, streams: meta.streams }));
      // The plan job is added in the round trip that records the run, after it. When an unfinished run holds the
      // window, no run of this id exists, so the add's check takes the job back (test/e2e/one-run-per-window.int.test.ts).
      const [recorded, planned] = await Promise.allSettled([
        runs.createOrAttach({ ...meta, windowKey }),
        enqueuePlan(queues, { runId, phase: 1 }),
      ]);
      if (recorded.status === 'rejected') throw recorded.reason;
      const outcome = recorded.value;
      if (planned.status === 'rejected' && !isRunGone(planned.reason)) throw planned.reason;
      // Also when attaching to a run still planning: its command may have died between recording it and enqueueing
      // its plan. The job id makes this a no-op when the plan job is there.
      const plannedOurs = outcome.created && planned.status === 'fulfilled';
      if (!plannedOurs && (outcome.created || outcome.meta.status === 'planning')) {
        await enqueuePlan(queues, { runId: outcome.meta.runId, phase: 1 });
      }
      return { runId: outcome.meta.runId, created: outcome.created, attached: !outcome.created, meta: outcome.meta };
    } finally {
      await queues.close();
    }
  } catch (error) {
    // A scheduler's tick tries again and says so itself: these words are a command's, which stops.
    if (options.waitForRedis) throw error;
    throw redisFullFault(error as Error, options.redisUrl) ?? explainFrozen(error, options.redisUrl);
  } finally {
    connection.disconnect();
  }
}

/**
 * Two commands are one run when kind, days, brands and streams match: a backfill's `from` to `to` capped at today, a
 * sync's today (cursors move only at a run's end). `backfill --skip-complete` is not the same run as a full one.
 */
export function runWindowIdentity(
  input: Pick<StartRunOptions, 'kind' | 'brands' | 'streams' | 'today' | 'from' | 'to' | 'skipComplete'>,
): string {
  const window =
    input.kind === 'backfill' && input.from && input.to
      ? `${input.from}..${minDay(input.to, input.today)}`
      : `today ${input.today}`;
  const brands = [...new Set(input.brands)].sort((a, b) => a - b).join(',');
  const streams = [...new Set(input.streams)].sort().join(',');
  const skipping = input.kind === 'backfill' && input.skipComplete ? ' skipping complete slices' : '';
  return `${input.kind} ${window} brands ${brands} streams ${streams}${skipping}`;
}

/** The record of a run about to be planned. */
export function newRunMeta(runId: string, options: Omit<StartRunOptions, 'redisUrl' | 'log' | 'runId'>): RunMeta {
  return {
    runId,
    kind: options.kind,
    brands: options.brands,
    // Spelled out: the planner reads an empty list as every stream, but finalize moves the cursors of the streams
    // listed, so an empty list would load everything and never advance the incremental position.
    streams: selectStreams(options.streams).map((stream) => stream.name),
    today: options.today,
    from: options.from ?? null,
    to: options.to ?? null,
    status: 'planning',
    startedAt: new Date().toISOString(),
    finishedAt: null,
    phase: 0,
    published: null,
    error: null,
    db: writtenFile(options.config.db),
    ...(options.kind === 'backfill' && options.skipComplete ? { skipComplete: true } : {}),
    ...(options.kind === 'heal' && options.heal ? { heal: options.heal } : {}),
  };
}

export interface RunProgress {
  meta: RunMeta;
  planned: number;
  done: number;
  counters: Map<string, StreamCounters>;
  /** Until when this process's fetching waits out a rate limit (ms since the epoch); absent when it does not. */
  rateLimitedUntil?: number;
}

export interface RunToEndOptions extends Omit<StartRunOptions, 'load'> {
  /** Only enqueue; another process's worker runs it. */
  enqueueOnly?: boolean;
  /** Called about twice a second while waiting. */
  onProgress?: (progress: RunProgress) => void;
  worker?: Partial<WorkerHostOptions>;
  /** Stops waiting (and the in-process worker) when aborted. */
  signal?: AbortSignal;
  /** Told once the run is recorded or found: whether this command attached to an unfinished run, and its progress. */
  onStart?: (start: { attached: boolean; progress: RunProgress }) => void;
  /** How long Redis may stay unreachable before the wait gives up with RedisGoneError; default DEFAULT_REDIS_OUTAGE_MS. */
  redisOutageMs?: number;
  /** Tells people of a run that ends failed or incomplete (this process's worker, or the command itself); default none. */
  notifier?: Notifier;
}
// The run's end is noticed within a tenth of a second, since short runs would otherwise wait on the poll.
const POLL_INTERVAL_MS = 100;
const PROGRESS_INTERVAL_MS = 500;

/**
 * `bvsync sync` and `backfill`: enqueue the run, work on it in this process beside any other workers (unless
 * enqueue-only), and wait for it to finish. Returns the run's last progress.
 */
export async function runToEnd(options: RunToEndOptions): Promise<RunProgress> {
  const { runId, attached } = await enqueueRun({
    ...options,
    load: !options.enqueueOnly && options.worker?.load !== false,
  });
  const host = options.enqueueOnly
    ? undefined
    : new WorkerHost({
        config: options.config,
        redisUrl: options.redisUrl,
        log: options.log,
        notifier: options.notifier,
        ...options.worker,
      });
  await host?.start();
  const connection = connectRedis(options.redisUrl);
  // Without a listener ioredis prints "Unhandled error event" for every failed reconnect while Redis is down.
  connection.on('error', (error: Error) =>
    options.log.debug({ err: error.message }, 'redis connection error while waiting on the run; reconnecting'),
  );
  const runs = new RunStore(connection, options.config.redisPrefix);
  let redisGone = false;
  const outage = new RedisOutageWatch(connection, options.redisUrl, options.redisOutageMs ?? DEFAULT_REDIS_OUTAGE_MS);
  try {
    if (attached) options.log.info({ run: runId }, 'attaching to the unfinished run of the same window');
    options.onStart?.({ attached, progress: await outage.within(runId, readProgress(runs, runId)) });
    let reported = 0;
    for (;;) {
      const progress = await outage.within(runId, readProgress(runs, runId));
      const finished = isFinishedRunStatus(progress.meta.status) || options.enqueueOnly === true;
      if (finished || performance.now() - reported >= PROGRESS_INTERVAL_MS) {
        reported = performance.now();
        const rateLimitedUntil = host?.rateLimitedUntil;
        options.onProgress?.(
          rateLimitedUntil && rateLimitedUntil > Date.now() ? { ...progress, rateLimitedUntil } : progress,
        );
      }
      if (finished) {
        await notifyOfEnd(runs, options, progress, outage);
        return progress;
      }
      const writerProblem = host?.writerProblem();
      if (writerProblem) throw writerProblem;
      if (options.signal?.aborted) {
        // The stop lets the running load job finish, which may finalize the run: the command reports the run as the
        // stop left it, read after the stop.
        await host?.stop();
        return await outage.within(runId, readProgress(runs, runId));
      }
      await sleep(POLL_INTERVAL_MS);
    }
  } catch (error) {
    redisGone = error instanceof RedisGoneError;
    throw error;
  } finally {
    outage.stop();
    await host?.stop(undefined, { redisGone });
    connection.disconnect();
  }
}

/**
 * The command's notice of its run, sent when no writer claimed it first (one with no webhook for the event, or of an
 * older version); its delivery is awaited by the notifier's settle, before the command exits.
 */
async function notifyOfEnd(
  runs: RunStore,
  options: RunToEndOptions,
  progress: RunProgress,
  outage: RedisOutageWatch,
): Promise<void> {
  try {
    const claim = claimRunEndNotice({ runs, notifier: options.notifier, meta: progress.meta });
    const notice = await outage.within(progress.meta.runId, claim);
    sendRunEndNotices(options.notifier, notice, undefined, options.log);
  } catch (error) {
    options.log.warn(
      { run: progress.meta.runId, err: (error as Error).message },
      'could not prepare the notice of the run',
    );
  }
}

/** The run a command waits on is gone from Redis: Redis lost its data (restarted without persistence) or it expired. */
class RunLostError extends Error {
  readonly code = 'run_lost';
  constructor(readonly runId: string) {
    super(
      `run ${runId} is no longer in Redis (Redis lost its data?): run the same command again; ` +
        'what was loaded is kept in the warehouse, and the new run fetches the window again',
    );
    this.name = 'RunLostError';
  }
}

export async function readProgress(runs: RunStore, runId: string): Promise<RunProgress> {
  const meta = await runs.get(runId);
  if (!meta) throw new RunLostError(runId);
  const [{ planned, done }, counters] = await Promise.all([runs.progress(runId), runs.counters(runId)]);
  return { meta, planned, done, counters };
}
