import type { Command } from 'commander';
import type { RunKind } from '../../jobs/run-store.js';
import { parseDay, todayUtc } from '../days.js';
import { chooseBrands, chooseStreams, collect, commandLogger, readConfig, redisFor, requireApi, workerTimingsFromEnv, type CommonFlags } from './context.js';
import { preflight } from './preflight.js';
import { runWithReport } from './run-report.js';

/** The flags `sync` and `backfill` share. */
export interface RunFlags extends CommonFlags {
  brand?: string[];
  streams?: string;
  enqueueOnly?: boolean;
  today?: string;
}

export function addRunOptions(command: Command): Command {
  return command
    .option('--brand <id>', 'a brand id (repeatable, or comma-separated); default: the config\'s brands', collect)
    .option('--streams <names>', 'comma-separated streams; default: the config\'s, else all')
    .option('--enqueue-only', 'plan the run and leave it to running `bvsync worker` processes')
    .option('--today <YYYY-MM-DD>', 'the UTC day to treat as today (default: the real one; for replays and tests)');
}

export function todayFrom(flags: RunFlags): string {
  return flags.today ? parseDay(flags.today, '--today') : todayUtc();
}

/** Runs a sync or a backfill as the command line asks, and sets the exit code from its outcome. */
export async function runFromCommandLine(kind: RunKind, flags: RunFlags, window: { today: string; from?: string; to?: string }): Promise<void> {
  const config = readConfig(flags);
  requireApi(config);
  await preflight(config);
  const log = commandLogger(flags);
  const brands = chooseBrands(config, flags.brand);
  const streams = chooseStreams(config, flags.streams);
  const redis = await redisFor(config, log);
  try {
    const { exitCode } = await runWithReport({ config, redisUrl: redis.url, log, kind, brands, streams, ...window, enqueueOnly: flags.enqueueOnly, worker: workerTimingsFromEnv() });
    process.exitCode = exitCode;
  } finally {
    await redis.stop();
    // The run is over and reported. A connection BullMQ could not close (one stuck reconnecting after a Redis restart)
    // must not keep the command alive; unref'd, this fires only when something else still holds the process open.
    setTimeout(() => process.exit(), LINGER_LIMIT_MS).unref();
  }
}

/** How long a finished `sync`/`backfill` may linger on open handles before it exits anyway. */
const LINGER_LIMIT_MS = 5_000;
