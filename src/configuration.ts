import { z } from 'zod';
import { type LoadConfigOptions, parseConfigWith, readConfigInput } from './config/load.js';
import { composeConfigSchema, syncConfigSchemaFor } from './config/schema.js';
import { domainOf } from './streams/domains.js';
import {
  DEFAULT_STREAM_NAMES,
  ENDPOINT_PARAMS,
  PARAM_NAMES,
  STREAM_NAMES,
  STREAM_SETTINGS,
} from './streams/registry.js';

/**
 * bvsync's config schema: the config layer's settings with the stream registry's names, parameter names and `sync`
 * settings in them. It is composed here, above both layers, so the config imports no stream (docs/architecture.md).
 */
const catalog = { streamNames: STREAM_NAMES, paramNames: PARAM_NAMES, endpointParams: ENDPOINT_PARAMS, domainOf };
const syncConfigSchema = syncConfigSchemaFor(catalog);
export const configSchema = composeConfigSchema(
  catalog,
  // Each stream's own settings (src/streams/<name>.ts, `settings`), after the shared ones.
  z.object({ ...syncConfigSchema.shape, ...STREAM_SETTINGS }).strict(),
);

export type Config = z.output<typeof configSchema>;
export type SyncConfig = Config['sync'];
export type ScheduleConfig = Config['schedules'][number];

/** The config of a command: its file (`path`, else `BVSYNC_CONFIG`, else `./bvsync.config.json`), then the environment. */
export function loadConfig(options: LoadConfigOptions = {}): Config {
  const input = readConfigInput(options);
  return parseConfig(input.raw, input.source, input.fromEnv);
}

/** `fromEnv`: the settings an environment variable gave, by setting path, so a bad value names its variable. */
export function parseConfig(raw: unknown, source = 'config', fromEnv: ReadonlyMap<string, string> = new Map()): Config {
  return parseConfigWith(configSchema, raw, source, fromEnv);
}

/** The streams a schedule runs: its own, else those of a plain sync (`sync.streams`, else the default ones). */
export function scheduleStreams(config: Config, schedule: ScheduleConfig): readonly string[] {
  return schedule.streams ?? config.sync.streams ?? DEFAULT_STREAM_NAMES;
}

/** Whether this config keeps the brand in step: one of its brands, or any brand when it names none. */
export function syncsBrand(config: Config, brand: number): boolean {
  return config.brands.length === 0 || config.brands.includes(brand);
}

/** The streams this config keeps in step: a plain sync's and every schedule's (test/ops/metrics.int.test.ts). */
export function syncedStreams(config: Config): Set<string> {
  const synced = new Set<string>(config.sync.streams ?? DEFAULT_STREAM_NAMES);
  for (const schedule of config.schedules) for (const name of scheduleStreams(config, schedule)) synced.add(name);
  return synced;
}
