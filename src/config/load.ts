import { readFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { configSchema, type Config } from './schema.js';
import { registerSecret } from '../log.js';

/** A config that cannot be used; its message lists every problem, one per line, with where it is. */
export class ConfigError extends Error {
  readonly code = 'config_invalid';
  constructor(
    readonly source: string,
    readonly problems: string[],
  ) {
    super(`${source} is not a valid bvsync config:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export interface LoadConfigOptions {
  /** Path of the JSON config; default `BVSYNC_CONFIG`, else `./bvsync.config.json` when it exists. */
  path?: string;
  /** Environment to read overrides from; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Values that win over the file and the environment (command line flags). */
  overrides?: (raw: Record<string, unknown>) => void;
}

export const DEFAULT_CONFIG_FILE = 'bvsync.config.json';

export function loadConfig(options: LoadConfigOptions = {}): Config {
  const env = options.env ?? process.env;
  const explicit = options.path ?? env.BVSYNC_CONFIG;
  const path = explicit ?? (existsSync(DEFAULT_CONFIG_FILE) ? DEFAULT_CONFIG_FILE : undefined);
  const source = path ? resolve(path) : 'the environment';
  let raw: Record<string, unknown> = {};
  if (path) raw = readJsonObject(path, source);
  applyEnv(raw, env, source);
  options.overrides?.(raw);
  return parseConfig(raw, source);
}

export function parseConfig(raw: unknown, source = 'config'): Config {
  const result = configSchema.safeParse(raw);
  if (!result.success) throw new ConfigError(source, describeIssues(result.error));
  registerSecret(result.data.api.apiKey);
  return result.data;
}

export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const where = issue.path.length ? settingPath(issue.path) : '(top level)';
    return `${where}: ${issue.message}`;
  });
}

/** A setting's path as a reader finds it in the file: `schedules[1].cron`, `api.params.page_size`. */
export function settingPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((key, i) => (typeof key === 'number' ? `[${key}]` : `${i ? '.' : ''}${String(key)}`)).join('');
}

function readJsonObject(path: string, source: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(source, [`cannot read the file: ${(error as NodeJS.ErrnoException).code ?? String(error)}`]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(source, [`not valid JSON: ${(error as Error).message}`]);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(source, ['expected a JSON object at the top level']);
  }
  return value as Record<string, unknown>;
}

function applyEnv(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, source: string): void {
  const api = (raw.api ??= {}) as Record<string, unknown>;
  if (typeof api !== 'object' || api === null) return;
  if (env.BVSYNC_API_URL) api.url = env.BVSYNC_API_URL;
  if (env.BVSYNC_API_KEY) api.apiKey = env.BVSYNC_API_KEY;
  if (env.BVSYNC_DB) raw.db = env.BVSYNC_DB;
  if (env.REDIS_URL) raw.redisUrl = env.REDIS_URL;
  if (env.BVSYNC_DUCKDB_MEMORY_LIMIT || env.BVSYNC_DUCKDB_THREADS) {
    const warehouse = (raw.warehouse ??= {}) as Record<string, unknown>;
    if (env.BVSYNC_DUCKDB_MEMORY_LIMIT) warehouse.memoryLimit = env.BVSYNC_DUCKDB_MEMORY_LIMIT;
    // Left as text when it is not a number, so the schema names the variable's bad value instead of a silent default.
    if (env.BVSYNC_DUCKDB_THREADS) warehouse.threads = /^\d+$/.test(env.BVSYNC_DUCKDB_THREADS) ? Number(env.BVSYNC_DUCKDB_THREADS) : env.BVSYNC_DUCKDB_THREADS;
  }
  if (env.BVSYNC_BRANDS !== undefined && env.BVSYNC_BRANDS.trim() !== '') {
    raw.brands = parseBrandList(env.BVSYNC_BRANDS, `${source}: BVSYNC_BRANDS`);
  }
}

export function parseBrandList(text: string, where: string): number[] {
  return text.split(',').map((part) => {
    const trimmed = part.trim();
    if (!/^[1-9]\d*$/.test(trimmed)) {
      throw new ConfigError(where, [`"${trimmed}" is not a brand id (a positive integer); expected e.g. 1,2,3`]);
    }
    return Number(trimmed);
  });
}
