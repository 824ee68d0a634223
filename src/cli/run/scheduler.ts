import { Command } from 'commander';
import { requireApiSettings } from '../../config/api-settings.js';
import { startScheduler } from '../../engine/schedule/scheduler.js';
import { addCommonOptions, commandLogger, readConfig, redisFor, workerTimings, type CommonFlags } from '../context.js';
import { stopSignal } from '../signals.js';
import { descriptionOf } from '../commands.js';

export function schedulerCommand(): Command {
  return addCommonOptions(new Command('scheduler').description(descriptionOf('scheduler'))).action(
    async (flags: CommonFlags) => {
      const config = readConfig(flags);
      requireApiSettings(config.api);
      const log = commandLogger(flags);
      const redis = await redisFor(config, log, { allowPrivate: false });
      const scheduler = await startScheduler({ config, redisUrl: redis.url, log, today: workerTimings().today });
      await stopSignal();
      await scheduler.stop();
      log.info('scheduler stopped');
    },
  );
}
