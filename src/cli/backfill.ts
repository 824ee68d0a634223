import { Command } from 'commander';
import { parseDay, todayUtc } from '../days.js';
import { addCommonOptions, chooseBrands, chooseStreams, collect, commandLogger, readConfig, redisFor, requireApi, workerTimingsFromEnv, type CommonFlags } from './context.js';
import { UsageError } from './fail.js';
import { preflight } from './preflight.js';
import { runWithReport } from './run-report.js';

interface BackfillFlags extends CommonFlags {
  from: string;
  to?: string;
  brand?: string[];
  streams?: string;
  enqueueOnly?: boolean;
  today?: string;
}

export function backfillCommand(): Command {
  return addCommonOptions(
    new Command('backfill')
      .description('fetch every slice of a window (both days included); the incremental schedule is left where it is')
      .requiredOption('--from <YYYY-MM-DD>', 'first day')
      .option('--to <YYYY-MM-DD>', 'last day (default: today)')
      .option('--brand <id>', 'a brand id (repeatable, or comma-separated); default: the config\'s brands', collect)
      .option('--streams <names>', 'comma-separated streams; default: the config\'s, else all')
      .option('--enqueue-only', 'plan the run and leave it to running `bvsync worker` processes')
      .option('--today <YYYY-MM-DD>', 'the UTC day to treat as today (default: the real one)'),
  ).action(async (flags: BackfillFlags) => {
    const today = flags.today ? parseDay(flags.today, '--today') : todayUtc();
    const from = parseDay(flags.from, '--from');
    const to = flags.to ? parseDay(flags.to, '--to') : today;
    if (from > to) throw new UsageError(`--from ${from} is after --to ${to}`);
    if (from > today) throw new UsageError(`--from ${from} is in the future (today is ${today}); there is nothing to fetch yet`);
    const config = readConfig(flags);
    requireApi(config);
    await preflight(config);
    const log = commandLogger(flags);
    const brands = chooseBrands(config, flags.brand);
    const streams = chooseStreams(config, flags.streams);
    const worker = workerTimingsFromEnv();
    const redis = await redisFor(config, log);
    try {
      const { exitCode } = await runWithReport({ config, redisUrl: redis.url, log, kind: 'backfill', brands, streams, today, from, to, enqueueOnly: flags.enqueueOnly, worker });
      process.exitCode = exitCode;
    } finally {
      await redis.stop();
    }
  });
}
