import { Command } from 'commander';
import { todayUtc, parseDay } from '../days.js';
import { addCommonOptions, chooseBrands, chooseStreams, collect, commandLogger, readConfig, redisFor, requireApi, workerTimingsFromEnv, type CommonFlags } from './context.js';
import { preflight } from './preflight.js';
import { runWithReport } from './run-report.js';

interface SyncFlags extends CommonFlags {
  brand?: string[];
  streams?: string;
  enqueueOnly?: boolean;
  today?: string;
}

export function syncCommand(): Command {
  return addCommonOptions(
    new Command('sync')
      .description('incremental sync now: the days since each stream last completed, plus the lookback days again')
      .option('--brand <id>', 'a brand id (repeatable, or comma-separated); default: the config\'s brands', collect)
      .option('--streams <names>', 'comma-separated streams; default: the config\'s, else all')
      .option('--enqueue-only', 'plan the run and leave it to running `bvsync worker` processes')
      .option('--today <YYYY-MM-DD>', 'the UTC day to treat as today (default: the real one; for replays and tests)'),
  ).action(async (flags: SyncFlags) => {
    const config = readConfig(flags);
    requireApi(config);
    await preflight(config);
    const log = commandLogger(flags);
    const brands = chooseBrands(config, flags.brand);
    const streams = chooseStreams(config, flags.streams);
    const today = flags.today ? parseDay(flags.today, '--today') : todayUtc();
    const worker = workerTimingsFromEnv();
    const redis = await redisFor(config, log);
    try {
      const { exitCode } = await runWithReport({ config, redisUrl: redis.url, log, kind: 'sync', brands, streams, today, enqueueOnly: flags.enqueueOnly, worker });
      process.exitCode = exitCode;
    } finally {
      await redis.stop();
    }
  });
}
