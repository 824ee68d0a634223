import { Command } from 'commander';
import { addCommonOptions } from '../context.js';
import { addRunOptions, runFromCommandLine, todayFrom, type RunFlags } from './run-command.js';

export function syncCommand(): Command {
  return addRunOptions(
    addCommonOptions(
      new Command('sync').description(
        'Sync now: the days since each stream last completed, plus the lookback days again',
      ),
    ),
  ).action(async (flags: RunFlags) => {
    await runFromCommandLine('sync', flags, { today: todayFrom(flags) });
  });
}
