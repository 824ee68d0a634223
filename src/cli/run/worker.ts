import { Command } from 'commander';
import { requireApiSettings } from '../../config/api-settings.js';
import { WorkerHost } from '../../engine/jobs/worker-host.js';
import { serveHostMetrics } from '../../ops/host-metrics.js';
import { parsePort } from '../../ops/port.js';
import { PrometheusMetrics } from '../../ops/prometheus-metrics.js';
import { notifierFor } from '../../notify/index.js';
import { loadProcessSettings } from '../../config/load.js';
import { DEFAULT_REDIS_OUTAGE_MS } from '../../engine/redis/redis-outage.js';
import { connectRedis } from '../../engine/redis/redis.js';
import { RunStore } from '../../engine/run/run-store.js';
import { formatCount } from '../../format.js';
import { addCommonOptions, commandLogger, readConfig, redisFor, workerTimings, type CommonFlags } from '../context.js';
import { listenError, UsageError } from '../fail.js';
import { checkLocalSetup, preflight } from '../preflight.js';
import { LINGER_LIMIT_MS, onStopSignal } from '../signals.js';
import { skipCompleteCommand } from './skip-complete-command.js';
import { EXIT_NOT_DONE } from '../exit-codes.js';
import { descriptionOf } from '../commands.js';

interface WorkerFlags extends CommonFlags {
  concurrency?: string;
  fetchOnly?: boolean;
  shutdownSeconds?: string;
  metricsPort?: string;
}

/** After the shutdown deadline, how long the worker may still take to close DuckDB and Redis before it exits anyway. */
const HARD_STOP_GRACE_MS = 5_000;

export function workerCommand(): Command {
  return addCommonOptions(
    new Command('worker')
      .description(descriptionOf('worker'))
      .option('--concurrency <n>', 'fetch jobs at once (default: sync.fetchConcurrency)')
      .option('--fetch-only', 'never take the DuckDB writer lease (a fetch-only machine)')
      .option('--shutdown-seconds <n>', 'on SIGTERM/SIGINT, how long running jobs may finish', '30')
      .option('--metrics-port <port>', 'serve Prometheus metrics on http://0.0.0.0:<port>/metrics (default: none)'),
  ).action(async (flags: WorkerFlags) => {
    const config = readConfig(flags);
    requireApiSettings(config.api);
    const log = commandLogger(flags);
    const concurrency = flags.concurrency === undefined ? undefined : Number(flags.concurrency);
    if (concurrency !== undefined && !(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= 64))
      throw new UsageError(`--concurrency "${flags.concurrency}" is not a whole number from 1 to 64`);
    const shutdownMs = Number(flags.shutdownSeconds) * 1000;
    if (!(shutdownMs > 0))
      throw new UsageError(`--shutdown-seconds "${flags.shutdownSeconds}" is not a positive number`);
    const timings = workerTimings();
    const metricsPort = flags.metricsPort === undefined ? undefined : parsePort(flags.metricsPort, '--metrics-port');
    const metrics = metricsPort === undefined ? undefined : new PrometheusMetrics({ today: timings.today });
    const notifier = notifierFor(config, log);
    // Listened for before the preflight and the host's start, which can both wait, so a signal then stops the worker
    // cleanly rather than killing it.
    const stopping = new AbortController();
    let hardStop: NodeJS.Timeout | undefined;
    const stopRequested = new Promise<void>((resolve) => {
      onStopSignal((signal) => {
        log.info({ signal, deadlineSeconds: shutdownMs / 1000 }, 'shutting down: finishing running jobs');
        stopping.abort();
        // Closing the queues waits on Redis; with Redis gone the worker ignored SIGTERM for good. Past the deadline (and
        // a grace for closing DuckDB) it exits anyway: that is a crash to the engine, which every job survives.
        hardStop = setTimeout(() => {
          log.error(
            { deadlineSeconds: shutdownMs / 1000 + HARD_STOP_GRACE_MS / 1000 },
            'could not stop cleanly in time (a job still running, or Redis not answering); exiting now, running jobs go to other workers',
          );
          process.exit(EXIT_NOT_DONE);
        }, shutdownMs + HARD_STOP_GRACE_MS).unref();
        resolve();
      });
    });
    // The preflight, at start: the database path when this worker may become the writer, Redis, then the key (a
    // refused key exits 2 here rather than failing every slice later) and the config's brands. See preflight.ts.
    if (!flags.fetchOnly) await checkLocalSetup(config, log);
    const redis = await redisFor(config, log, { allowPrivate: false }).catch(async (error: unknown) => {
      await notifier?.failed(error);
      throw error;
    });
    const refusal = await preflight(config, redis.url, {
      brands: config.brands,
      requireReachable: false,
      log,
      signal: stopping.signal,
    }).then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
    // A preflight may also end normally after the signal (no brand to probe, its last probe answered): stopped all the same.
    if (refusal || stopping.signal.aborted) {
      if (refusal && !stopping.signal.aborted) {
        await notifier?.failed(refusal.error);
        throw refusal.error;
      }
      clearTimeout(hardStop);
      log.info('worker stopped before it started: no job was taken');
      return;
    }
    // A worker reconnects to Redis for ever; past BVSYNC_REDIS_OUTAGE_MS (a command's limit too) it tells of the outage.
    const redisFaultAfterMs = loadProcessSettings().redisOutageMs ?? DEFAULT_REDIS_OUTAGE_MS;
    const host = new WorkerHost({
      config,
      redisUrl: redis.url,
      log,
      fetchConcurrency: concurrency,
      load: !flags.fetchOnly,
      metrics,
      notifier,
      redisFaultAfterMs,
      describeBackfill: (backfill) => skipCompleteCommand(backfill, config.brands),
      ...timings,
    });
    // Before the host starts: a port in use then ends the command at once, where the worker ran on, holding the lease,
    // with its metrics nowhere.
    const metricsServer =
      metrics &&
      (await serveHostMetrics(host, metrics, {
        port: metricsPort!,
        log,
        db: flags.fetchOnly ? undefined : config.db,
      }).catch((error: unknown) => {
        throw listenError(error, '--metrics-port', metricsPort!);
      }));
    // A start refused (another warehouse's writer on this prefix) closes what is open, or the command never ends.
    await host.start().catch(async (error: unknown) => {
      await host.stop(shutdownMs);
      await metricsServer?.close();
      throw error;
    });
    if (metricsServer) log.info({ url: metricsServer.url, listening: metricsServer.listening }, 'serving metrics');
    log.info(
      { redis: redis.origin, concurrency: concurrency ?? config.sync.fetchConcurrency, load: !flags.fetchOnly },
      'worker started',
    );
    // A full disk ends the worker (exit 1, saying where and what to do): every load would fail, and a worker that stays
    // up looks healthy while load jobs wait. Its supervisor restarts it once there is room.
    const fault = await Promise.race([stopRequested.then(() => undefined), host.writerFaulted]);
    await host.stop(shutdownMs);
    await metricsServer?.close();
    clearTimeout(hardStop);
    if (fault) {
      setTimeout(() => process.exit(), LINGER_LIMIT_MS).unref();
      throw fault;
    }
    if (!host.stoppedWithRedis) {
      // Its jobs' ends never reached Redis: to the engine this is a crash (which every job survives), not a clean stop.
      log.error('could not stop cleanly (is Redis answering?); exiting now, running jobs go to other workers');
      process.exit(EXIT_NOT_DONE);
    }
    const unfinished = await unfinishedRunIds(redis.url, config.redisPrefix);
    if (unfinished.length)
      log.info(
        { runs: unfinished },
        `worker stopped; ${formatCount(unfinished.length, 'unfinished run')} left queued for any bvsync worker: ${namedRuns(unfinished)}`,
      );
    else log.info('worker stopped');
    // A connection stuck reconnecting after a Redis restart must not keep a stopped worker alive; unref'd, this fires
    // only when something still holds the process open.
    setTimeout(() => process.exit(), LINGER_LIMIT_MS).unref();
  });
}

/** How long a stopped worker asks Redis for the runs it leaves: past it, it stops without naming them. */
const UNFINISHED_ASK_MS = 2_000;

/** The ids of the prefix's unfinished runs, newest first; none when Redis does not answer in UNFINISHED_ASK_MS. */
async function unfinishedRunIds(redisUrl: string, prefix: string): Promise<string[]> {
  const connection = connectRedis(redisUrl, { maxRetriesPerRequest: 1, commandTimeout: UNFINISHED_ASK_MS });
  try {
    return (await new RunStore(connection, prefix).unfinished()).map((run) => run.runId);
  } catch {
    return [];
  } finally {
    connection.disconnect();
  }
}

/** Up to five run ids, then how many more: bvsync status lists them all. */
function namedRuns(runIds: string[]): string {
  const more = runIds.length - 5;
  return runIds.slice(0, 5).join(', ') + (more > 0 ? `, and ${more} more (bvsync status)` : '');
}
