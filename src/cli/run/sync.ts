import { Command } from 'commander';
import { addCommonOptions, todayFrom } from '../context.js';
import { addRunOptions, runFromCommandLine, type RunFlags } from './run-command.js';
import { descriptionOf } from '../commands.js';

export function syncCommand(): Command {
  return addRunOptions(addCommonOptions(new Command('sync').description(descriptionOf('sync')))).action(
    async (flags: RunFlags) => {
      await runFromCommandLine('sync', flags, { today: todayFrom(flags) });
    },
  );
}
