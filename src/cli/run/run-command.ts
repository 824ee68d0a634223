import type { Command } from 'commander';
import type { PushRunMetricsOptions } from '../../ops/push-run-metrics.js';
import { requireApiSettings } from '../../config/api-settings.js';
import { eachDay } from '../../days.js';
import { UsageError } from '../fail.js';
import {
  chooseBrands,
  chooseStreams,
  collect,
  commandLogger,
  readConfig,
  redisFor,
  workerTimings,
  type CommonFlags,
} from '../context.js';
import type { Logger } from '../../log.js';
import { loadProcessSettings } from '../../config/load.js';
import { checkLocalSetup, preflight, type PreflightResult } from '../preflight.js';
import { runWithReport } from './run-report.js';
import { getStream } from '../../streams/registry.js';
import { totalCounters } from '../../engine/run/run-store.js';
import { notifierFor } from '../../notify/index.js';
import { isFinishedRunStatus, type RunKind } from '../../vocabulary.js';
import type { Config } from '../../configuration.js';
import { LINGER_LIMIT_MS, onStopSignal } from '../signals.js';
import { skipCompleteCommand } from './skip-complete-command.js';
import { EXIT_NOT_DONE } from '../exit-codes.js';

/** The flags `sync` and `backfill` share. */
export interface RunFlags extends CommonFlags {
  brand?: string[];
  streams?: string;
  enqueueOnly?: boolean;
  today?: string;
}

export function addRunOptions(command: Command): Command {
  return command
    .option('--brand <id>', "a brand id (repeatable, or comma-separated); default: the config's brands", collect)
    .option('--streams <names>', "comma-separated streams; default: the config's, else every default stream")
    .option('--enqueue-only', 'plan the run and leave it to running `bvsync worker` processes')
    .option('--today <YYYY-MM-DD>', 'the UTC day to treat as today (default: the real one; for replays and tests)');
}

/**
 * Streams named on purpose whose setting lists nothing (`--streams swot` without `sync.swotStatementIds`) would end
 * complete with no request: when all are such nothing starts (exit 2), else each is named on stderr.
 */
function checkNamedStreamsPlan(config: Config, streams: readonly string[], brands: readonly number[]): void {
  const reasons = new Map<string, string>();
  for (const name of streams) {
    const stream = getStream(name);
    const why = brands
      .map((brand) => stream.unconfigured?.(config.sync as never, brand))
      .filter((text): text is string => text !== undefined);
    if (why.length === brands.length && why.length > 0) reasons.set(name, [...new Set(why)].join('; '));
  }
  if (reasons.size === 0) return;
  const whom = brands.length === 1 ? `brand ${brands[0]}` : `brands ${brands.join(', ')}`;
  const text = [...reasons].map(([name, why]) => `${name} plans nothing for ${whom}: ${why}`).join('; ');
  if (reasons.size === streams.length)
    throw new UsageError(
      `${text}; nothing was started. Set it in the config (docs/configuration.md), or name other streams`,
    );
  process.stderr.write(`bvsync: ${text}; the other streams run\n`);
}

/**
 * A run's metrics and their push to the Pushgateway at `url`. prom-client loads only here: importing it costs some
 * 60 ms of CPU at each start otherwise (docs/performance.md).
 */
async function pushedMetrics(url: string, today: (() => string) | undefined) {
  const [{ PrometheusMetrics }, { pushRunMetrics }] = await Promise.all([
    import('../../ops/prometheus-metrics.js'),
    import('../../ops/push-run-metrics.js'),
  ]);
  const metrics = new PrometheusMetrics({ processMetrics: false, today });
  return {
    metrics,
    push: (options: Pick<PushRunMetricsOptions, 'prefix' | 'kind' | 'log'>) =>
      pushRunMetrics({ url, metrics, ...options }),
  };
}

/** Runs a sync or a backfill as the command line asks, and sets the exit code from its outcome. */
export async function runFromCommandLine(
  kind: RunKind,
  flags: RunFlags,
  window: { today: string; from?: string; to?: string; skipComplete?: boolean },
): Promise<void> {
  const config = readConfig(flags);
  requireApiSettings(config.api);
  const log = commandLogger(flags);
  const brands = chooseBrands(config, flags.brand);
  const streams = chooseStreams(config, flags.streams);
  if (flags.streams !== undefined || config.sync.streams !== undefined) checkNamedStreamsPlan(config, streams, brands);
  // Running slices get part of the shutdown deadline to finish; the rest is for closing Redis and DuckDB.
  const worker = { ...workerTimings(), stopDeadlineMs: RUN_SHUTDOWN_DEADLINE_MS / 2 };
  const notifier = notifierFor(config, log);
  const pushgateway = config.metrics.pushgateway
    ? await pushedMetrics(config.metrics.pushgateway, worker.today)
    : undefined;
  try {
    // The preflight, after every local check (a mistyped flag costs no request) and before anything is planned; cheapest
    // first: the database path, Redis, then the key and the brands (see preflight.ts).
    if (!flags.enqueueOnly)
      await checkLocalSetup(config, log, window.from && window.to ? eachDay(window.from, window.to).length : undefined);
    // An enqueued run is left to workers of another process, which a private Redis would hide it from.
    const redis = await redisFor(config, log, { allowPrivate: !flags.enqueueOnly });
    const stopping = new AbortController();
    const disarm = exitWithinDeadlineOnSignal(log, stopping);
    try {
      const checked = await preflight(config, redis.url, { brands, log, signal: stopping.signal, askAgain: streams });
      const { redisOutageMs } = loadProcessSettings();
      const { progress, exitCode } = await runWithReport(
        {
          config,
          redisUrl: redis.url,
          log,
          kind,
          brands,
          streams,
          ...window,
          enqueueOnly: flags.enqueueOnly,
          worker: {
            ...worker,
            metrics: pushgateway?.metrics,
            describeBackfill: (backfill) => skipCompleteCommand(backfill, config.brands),
          },
          redisOutageMs,
          notifier,
        },
        { deniedBrands: checked.denied.map((denial) => denial.brandId) },
      );
      reportSkippedBrands(checked);
      process.exitCode = exitCode;
      if (pushgateway && isFinishedRunStatus(progress.meta.status)) {
        const totals = totalCounters(progress.counters.values());
        pushgateway.metrics.recordRunResult(
          kind,
          progress.meta.status,
          totals.failed,
          new Date(progress.meta.finishedAt ?? Date.now()),
        );
        await pushgateway.push({ prefix: config.redisPrefix, kind, log });
      }
    } finally {
      disarm();
      await redis.stop();
    }
  } catch (error) {
    // A refused key, Redis gone: told to people before the command says it (src/notify/failure-notice.ts).
    await notifier?.failed(error);
    throw error;
  } finally {
    // Within notify.deliverySeconds: a webhook that does not answer delays the exit by that much at most.
    await notifier?.settle();
    // The run is over and reported. A connection BullMQ could not close (one stuck reconnecting after a Redis restart)
    // must not keep the command alive; unref'd, this fires only when something else still holds the process open.
    setTimeout(() => process.exit(), LINGER_LIMIT_MS).unref();
  }
}

/**
 * How long a `sync`/`backfill` may take to stop after SIGINT or SIGTERM (a second signal ends it at once); safe, as
 * its run's jobs stay queued and a slice cut short is fetched again by the next worker.
 */
export const RUN_SHUTDOWN_DEADLINE_MS = 10_000;

/** Arms the shutdown deadline on the first SIGINT/SIGTERM, and aborts the preflight if it is still asking; returns the disarm. */
function exitWithinDeadlineOnSignal(log: Logger, stopping: AbortController): () => void {
  return onStopSignal((signal) => {
    stopping.abort();
    log.info(
      { signal, deadlineSeconds: RUN_SHUTDOWN_DEADLINE_MS / 1000 },
      'stopping: the run stays queued for the next worker',
    );
    setTimeout(() => {
      process.stderr.write(
        `bvsync: could not stop cleanly within ${RUN_SHUTDOWN_DEADLINE_MS / 1000} s of ${signal} (a slice still running, or Redis not answering); exiting now, the run's jobs stay queued\n`,
      );
      process.exit(EXIT_NOT_DONE);
    }, RUN_SHUTDOWN_DEADLINE_MS).unref();
  });
}

/** Brands the preflight found unreadable, said once under the run's summary (their failed slices are in it). */
function reportSkippedBrands(checked: PreflightResult): void {
  for (const denial of checked.denied)
    process.stdout.write(
      `brand ${denial.brandId} skipped: the API key cannot read it (${denial.errorCode}${denial.requestId ? `, request ${denial.requestId}` : ''}); ` +
        'its slices are recorded failed without a request. Check BVSYNC_BRANDS (config "brands") or the key\'s access: bvsync doctor\n',
    );
}
