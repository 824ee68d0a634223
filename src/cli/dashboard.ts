import { Command } from 'commander';
import { startDashboard } from '../ops/dashboard-server.js';
import { parsePort } from '../ops/port.js';
import { stopSignal } from './signals.js';
import { addCommonOptions, commandLogger, readConfig, redisFor, type CommonFlags } from './context.js';
import { listenError } from './fail.js';
import { descriptionOf } from './commands.js';

interface DashboardFlags extends CommonFlags {
  port: string;
  host: string;
  readOnly?: boolean;
}

export function dashboardCommand(): Command {
  return addCommonOptions(
    new Command('dashboard')
      .description(descriptionOf('dashboard'))
      .option('--port <port>', 'port to listen on', '3000')
      .option(
        '--host <address>',
        'interface to listen on (0.0.0.0 in a container; the board can retry and delete jobs)',
        '127.0.0.1',
      )
      .option('--read-only', 'hide the buttons that retry, promote or delete jobs'),
  ).action(async (flags: DashboardFlags) => {
    const config = readConfig(flags);
    const log = commandLogger(flags);
    const port = parsePort(flags.port, '--port');
    const redis = await redisFor(config, log, { allowPrivate: false });
    const dashboard = await startDashboard({
      redisUrl: redis.url,
      prefix: config.redisPrefix,
      port,
      host: flags.host,
      readOnly: flags.readOnly,
    }).catch((error: unknown) => {
      throw listenError(error, '--port', port, flags.host);
    });
    log.info(
      { url: dashboard.url, prefix: config.redisPrefix, readOnly: flags.readOnly === true },
      'dashboard listening',
    );
    await stopSignal();
    await dashboard.close();
  });
}
