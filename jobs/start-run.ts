import { randomUUID } from 'node:crypto';
import type { Config } from '../src/config/schema.js';
import type { Logger } from '../src/log.js';
import { selectStreams } from '../src/streams/registry.js';
import { jobId } from './job-ids.js';
import { openQueues } from './queues.js';
import { connectRedis } from './redis.js';
import { RunStore, type RunKind, type RunMeta, type StreamCounters } from './run-store.js';
import { WorkerHost, type WorkerHostOptions } from './worker-host.js';

export interface StartRunOptions {
  config: Config;
  redisUrl: string;
  log: Logger;
  kind: RunKind;
  brands: number[];
  /** Stream names; empty means every stream. */
  streams: string[];
  /** The UTC day the run treats as today. */
  today: string;
  /** Backfill window (both included). */
  from?: string;
  to?: string;
  /** A fixed id makes starting the same run twice a no-op (scheduled slots); default a new one. */
  runId?: string;
}

/** Records a run in Redis and enqueues its first plan job; whichever process holds the writer lease plans it. */
export async function enqueueRun(options: StartRunOptions): Promise<{ runId: string; created: boolean }> {
  const runId = options.runId ?? `${options.kind}-${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${randomUUID().slice(0, 6)}`;
  const connection = connectRedis(options.redisUrl);
  try {
    const runs = new RunStore(connection, options.config.redisPrefix);
    const meta: RunMeta = {
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
    };
    const created = await runs.create(meta);
    if (created) {
      const queues = openQueues(connection, options.config.redisPrefix);
      await queues.load.add('plan', { runId, phase: 1 }, { jobId: jobId('plan', runId, 1) });
      await queues.close();
    }
    return { runId, created };
  } finally {
    connection.disconnect();
  }
}

export interface RunProgress {
  meta: RunMeta;
  planned: number;
  done: number;
  counters: Map<string, StreamCounters>;
}

export interface RunToEndOptions extends StartRunOptions {
  /** Only enqueue; another process's worker runs it. */
  enqueueOnly?: boolean;
  /** Called about twice a second while waiting. */
  onProgress?: (progress: RunProgress) => void;
  /** Options of the in-process worker. */
  worker?: Partial<WorkerHostOptions>;
  /** Stops waiting (and the in-process worker) when aborted. */
  signal?: AbortSignal;
}

const FINISHED: ReadonlyArray<RunMeta['status']> = ['complete', 'incomplete', 'failed'];
// The run's end is noticed within a tenth of a second (polling at 500 ms added ~250 ms to every sync and backfill on
// average: bench/naive.ts runs take a few seconds); progress is still reported about twice a second.
const POLL_INTERVAL_MS = 100;
const PROGRESS_INTERVAL_MS = 500;

/**
 * `bvsync sync` and `backfill`: enqueue the run, work on it in this process beside any other workers (unless
 * enqueue-only), and wait for it to finish. Returns the run's last progress.
 */
export async function runToEnd(options: RunToEndOptions): Promise<RunProgress> {
  const { runId } = await enqueueRun(options);
  const host = options.enqueueOnly ? undefined : new WorkerHost({ config: options.config, redisUrl: options.redisUrl, log: options.log, ...options.worker });
  await host?.start();
  const connection = connectRedis(options.redisUrl);
  // Without a listener ioredis prints "Unhandled error event" for every failed reconnect while Redis is down.
  connection.on('error', (error: Error) => options.log.debug({ err: error.message }, 'redis connection error while waiting on the run; reconnecting'));
  const runs = new RunStore(connection, options.config.redisPrefix);
  try {
    let reported = 0;
    for (;;) {
      const progress = await readProgress(runs, runId);
      const finished = FINISHED.includes(progress.meta.status) || options.enqueueOnly === true;
      if (finished || performance.now() - reported >= PROGRESS_INTERVAL_MS) {
        reported = performance.now();
        options.onProgress?.(progress);
      }
      if (finished) return progress;
      const writerProblem = host?.writerProblem();
      if (writerProblem) throw writerProblem;
      if (options.signal?.aborted) return progress;
      await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    }
  } finally {
    await host?.stop();
    connection.disconnect();
  }
}

/** The run a command waits on is gone from Redis: Redis lost its data (restarted without persistence) or it expired. */
export class RunLostError extends Error {
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
