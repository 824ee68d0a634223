import { Command } from 'commander';
import { minDay, parseDay } from '../../days.js';
import { addCommonOptions, todayFrom } from '../context.js';
import { UsageError } from '../fail.js';
import { addRunOptions, runFromCommandLine, type RunFlags } from './run-command.js';
import { descriptionOf } from '../commands.js';

interface BackfillFlags extends RunFlags {
  from: string;
  to?: string;
  skipComplete?: boolean;
}

export function backfillCommand(): Command {
  return addRunOptions(
    addCommonOptions(
      new Command('backfill')
        .description(descriptionOf('backfill'))
        .usage('--from <YYYY-MM-DD> [options]')
        .requiredOption('--from <YYYY-MM-DD>', 'first day')
        .option('--to <YYYY-MM-DD>', 'last day (default: today)')
        .option(
          '--skip-complete',
          'read only the slices the file does not have complete (failed, incomplete, never read, read while their day was today; lists not read today)',
        ),
    ),
  ).action(async (flags: BackfillFlags) => {
    // The dates are checked before anything else, so a mistyped day touches nothing.
    const today = todayFrom(flags);
    const from = parseDay(flags.from, '--from');
    const to = flags.to ? parseDay(flags.to, '--to') : today;
    // Without --to, a day after today is the future, not a day after a --to the user never gave.
    if (from > to && flags.to) throw new UsageError(`--from ${from} is after --to ${to}`);
    if (from > today)
      throw new UsageError(`--from ${from} is in the future (today is ${today}); there is nothing to fetch yet`);
    // Days after today have no data yet; said once, and the run's window is what it will fetch.
    if (to > today) process.stderr.write(`--to ${to} is after today (${today}): backfilling through today\n`);
    await runFromCommandLine('backfill', flags, {
      today,
      from,
      to: minDay(to, today),
      skipComplete: flags.skipComplete === true,
    });
  });
}
