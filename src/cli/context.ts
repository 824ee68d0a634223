import { InvalidArgumentError, type Command } from 'commander';
import type { Redis } from 'ioredis';
import type { ResolvedRedis } from '../engine/redis/redis.js';
import type { WorkerHostOptions } from '../engine/jobs/worker-host.js';
import { loadProcessSettings, parseBrandList, type ProcessSettings } from '../config/load.js';
import { createLogger, type Logger } from '../log.js';
import { parseDay, todayUtc } from '../days.js';
import { STREAM_NAMES, selectStreams } from '../streams/registry.js';
import { UsageError } from './fail.js';
import { loadConfig, type Config } from '../configuration.js';

/** Flags every command that reads the config shares. */
export interface CommonFlags {
  config?: string;
  logLevel?: string;
}

/** The config option, spelled the same on every command that reads the config. */
export const CONFIG_OPTION = {
  flags: '-c, --config <path>',
  description: 'config file (default: BVSYNC_CONFIG or ./bvsync.config.json)',
} as const;

export function addCommonOptions(command: Command): Command {
  return command
    .option(CONFIG_OPTION.flags, CONFIG_OPTION.description)
    .option('--log-level <level>', 'trace, debug, info, warn, error or silent (default: info)');
}

const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'];

export function commandLogger(flags: CommonFlags): Logger {
  const level = flags.logLevel ?? loadProcessSettings().logLevel;
  if (level !== undefined && !LOG_LEVELS.includes(level)) {
    const from = flags.logLevel === undefined ? 'BVSYNC_LOG_LEVEL' : '--log-level';
    throw new UsageError(`${from} "${level}" is not a log level; use one of ${LOG_LEVELS.join(', ')}`);
  }
  return createLogger({ level });
}

export function readConfig(flags: CommonFlags): Config {
  return loadConfig({ path: flags.config });
}

/** `--brand 1 --brand 2` or `--brand 1,2`, checked; else the config's brands; else a clear message. */
export function chooseBrands(config: Config, given: string[] | undefined): number[] {
  const brands = given?.length ? given.flatMap((text) => parseBrandList(text, '--brand')) : config.brands;
  if (brands.length === 0)
    throw new UsageError(
      'no brands to sync: pass --brand ID, set BVSYNC_BRANDS=1,2,3, or list "brands" in the config (the API has no endpoint that lists them)',
    );
  return [...new Set(brands)];
}

/**
 * The Redis a command uses. Only a command doing all its work in this process may start a private, empty redis-server
 * (`allowPrivate`): no other process reaches it (test/e2e/no-local-redis.int.test.ts).
 */
export async function redisFor(
  config: Config,
  log: Logger,
  options: { allowPrivate: boolean },
): Promise<ResolvedRedis> {
  // Imported here, so that commands that need no Redis (`sql`, `export`) do not load ioredis (docs/performance.md).
  const { resolveRedis } = await import('../engine/redis/redis.js');
  const redis = await resolveRedis({
    url: config.redisUrl,
    prefix: config.redisPrefix,
    allowPrivate: options.allowPrivate,
  });
  if (redis.origin === 'private')
    log.info({ url: redis.url }, 'no Redis configured or running: started a private redis-server for this command');
  return redis;
}

/** Runs `work` on a connection to the command's Redis (redisFor), then closes both, whether `work` ends or throws. */
export async function withRedis<T>(
  config: Config,
  log: Logger,
  options: { allowPrivate: boolean },
  work: (connection: Redis) => Promise<T>,
): Promise<T> {
  const redis = await redisFor(config, log, options);
  // Imported here for the reason redisFor gives.
  const { connectForCommand, explainFrozen } = await import('../engine/redis/redis.js');
  const connection = connectForCommand(redis.url);
  try {
    return await work(connection);
  } catch (error) {
    throw explainFrozen(error, redis.url);
  } finally {
    connection.disconnect();
    await redis.stop();
  }
}

export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Parses a whole-number option between `min` and `max`, refusing anything else with the option's name (exit 2). */
export function integerOption(name: string, min = 0, max = Number.MAX_SAFE_INTEGER): (text: string) => number {
  return (text: string): number => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min || value > max)
      throw new InvalidArgumentError(
        max === Number.MAX_SAFE_INTEGER
          ? `${name} must be an integer >= ${min}`
          : `${name} must be an integer from ${min} to ${max}`,
      );
    return value;
  };
}

/** The names of a comma-separated option, trimmed, the empty ones left out: `a, b,` is `a` and `b`. */
export function commaList(text: string): string[] {
  return text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
}

/** `--streams a,b`, else the config's list, else every stream; unknown names are a usage error. */
export function chooseStreams(config: Config, flag: string | undefined): string[] {
  const names = flag === undefined ? config.sync.streams : commaList(flag);
  // `--streams ,` (or an empty value from a script's unset variable) named no stream; read as the default, it ran them all.
  if (flag !== undefined && names!.length === 0)
    throw new UsageError(
      `--streams "${flag}" names no stream; give one or more, comma-separated (${STREAM_NAMES.join(', ')}), or leave --streams out for the default`,
    );
  return selectStreams(names).map((stream) => stream.name);
}

/** Today for a command: `BVSYNC_TODAY` when set (tests pin it to the simulator's day), else the real UTC day. */
export function commandToday(settings: ProcessSettings = loadProcessSettings()): string {
  return settings.today ?? todayUtc();
}

/**
 * `--today`, for replays: a day before the real one. A later day is refused: a sync would move its cursors past days
 * that have no data yet, and cursors never move back.
 */
export function todayFrom(flags: { today?: string }): string {
  const today = commandToday();
  if (!flags.today) return today;
  const asked = parseDay(flags.today, '--today');
  if (asked > today)
    throw new UsageError(`--today ${asked} is after the real today (${today}, UTC); it is for replaying earlier days`);
  return asked;
}

/** The engine's takeover timings and clock a command's worker uses; each unset one keeps the engine's default. */
export type WorkerTimings = Pick<WorkerHostOptions, 'leaseTtlMs' | 'lockDurationMs' | 'stalledIntervalMs' | 'today'>;

/**
 * Takeover timings of the worker of `worker`, `sync` and `backfill` from BVSYNC_LEASE_TTL_MS and BVSYNC_JOB_LOCK_MS,
 * and its today from BVSYNC_TODAY (test/process-settings.test.ts).
 */
export function workerTimings(settings: ProcessSettings = loadProcessSettings()): WorkerTimings {
  const timings: WorkerTimings = {};
  if (settings.today !== undefined) timings.today = () => settings.today!;
  if (settings.leaseTtlMs !== undefined) timings.leaseTtlMs = settings.leaseTtlMs;
  if (settings.jobLockMs !== undefined) {
    timings.lockDurationMs = settings.jobLockMs;
    timings.stalledIntervalMs = settings.jobLockMs;
  }
  return timings;
}
