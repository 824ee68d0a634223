import { readFileSync, existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { registerSecret } from '../log.js';
import { errnoOf } from '../format.js';
import { keyHint, keysAt, settingPath } from '../key-hint.js';
import { parseRedisAddress } from '../redis-address.js';
import { isDay } from '../days.js';
import { ConfigError } from './config-error.js';
import { secretFromEnv, type SecretFileOptions } from './secret-file.js';

export { ConfigError };

export interface LoadConfigOptions {
  /** Path of the JSON config; default `BVSYNC_CONFIG`, else `./bvsync.config.json` when it exists. */
  path?: string;
  /** Environment to read overrides from; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Values that win over the file and the environment (command line flags). */
  overrides?: (raw: Record<string, unknown>) => void;
  /** Told of a secret file others may read (`BVSYNC_API_KEY_FILE`, `REDIS_URL_FILE`); default: the process logger. */
  warn?: SecretFileOptions['warn'];
}

const DEFAULT_CONFIG_FILE = 'bvsync.config.json';

/** The config file a command reads (`path`, else `BVSYNC_CONFIG`, else `./bvsync.config.json` when it exists), or undefined: the environment alone. */
export function configFilePath(options: Pick<LoadConfigOptions, 'path' | 'env'> = {}): string | undefined {
  const explicit = options.path ?? (options.env ?? process.env).BVSYNC_CONFIG;
  return explicit ?? (existsSync(DEFAULT_CONFIG_FILE) ? DEFAULT_CONFIG_FILE : undefined);
}

/** What a config is read from: the file's object with the environment's settings over it, before the schema. */
export interface ConfigInput {
  raw: Record<string, unknown>;
  /** The file's path, or `the environment`, for errors. */
  source: string;
  /** The settings an environment variable gave, by setting path, so a bad value names its variable. */
  fromEnv: ReadonlyMap<string, string>;
}

/** The file and the environment a command's config comes from (`loadConfig` in src/configuration.ts parses it). */
export function readConfigInput(options: LoadConfigOptions = {}): ConfigInput {
  const env = options.env ?? process.env;
  const path = configFilePath(options);
  const source = path ? resolve(path) : 'the environment';
  const raw = path ? readJsonObject(path, source) : {};
  const fromEnv = applyEnv(raw, env, { warn: options.warn });
  options.overrides?.(raw);
  return { raw, source, fromEnv };
}

/** The secrets a parsed config holds, which `parseConfigWith` registers so no log or printed diff shows them. */
interface ConfigSecrets {
  api: { apiKey?: string | undefined };
  redisUrl?: string | undefined;
  redis?: { password?: string | undefined } | undefined;
  notify?: { webhooks: ReadonlyArray<{ url?: string | undefined }> } | undefined;
  metrics?: { pushgateway?: string | undefined } | undefined;
}

/** Parses a config with the whole schema (src/configuration.ts composes it); every problem in one `ConfigError`. */
export function parseConfigWith<Output extends ConfigSecrets>(
  schema: z.ZodType<Output>,
  raw: unknown,
  source = 'config',
  fromEnv: ReadonlyMap<string, string> = new Map(),
): Output {
  const result = schema.safeParse(raw);
  if (!result.success) throw new ConfigError(source, describeIssues(schema, result.error, fromEnv));
  registerSecret(result.data.api.apiKey);
  registerRedisPassword(result.data.redisUrl);
  if (result.data.redis?.password) registerSecret(result.data.redis.password);
  // A webhook's URL is its credential; a Pushgateway's is its password (test/config.test.ts, "secrets in a config").
  for (const hook of result.data.notify?.webhooks ?? []) if (hook.url) registerSecret(hook.url);
  const pushgatewayPassword = new URL(result.data.metrics?.pushgateway ?? 'http://-').password;
  registerSecret(pushgatewayPassword);
  try {
    registerSecret(decodeURIComponent(pushgatewayPassword));
  } catch {
    // A lone `%` is no escape (the URL check passes it): the password as written is registered above.
  }
  return result.data;
}

/** A Redis address's password is a secret as the API key is: registered decoded and as the address writes it. */
function registerRedisPassword(url: string | undefined): void {
  if (!url) return;
  const password = parseRedisAddress(url).password;
  if (!password) return;
  registerSecret(password);
  // And as a `?password=` writes it, where `+` may stand for a space (test/config.test.ts, "secrets in a config").
  registerSecret(/[?&]password=([^&#]*)/.exec(url)?.[1] ?? '');
}

function describeIssues(schema: z.ZodType, error: z.ZodError, fromEnv: ReadonlyMap<string, string>): string[] {
  return error.issues.map((issue) => {
    const where = issue.path.length ? settingPath(issue.path) : '(top level)';
    const variable = fromEnv.get(where);
    // A mistyped key says which it is a typo of (`requestPerSecond`: "requestsPerSecond"), as plan's files do.
    const hint =
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => keyHint(key, configKeysAt(schema, issue.path))).join('')
        : '';
    return `${where}${variable ? ` (from ${variable})` : ''}: ${issue.message}${hint}`;
  });
}

/** The keys the config may hold at a place (`sync`, `schedules[0]`), from its JSON Schema. */
function configKeysAt(schema: z.ZodType, path: ReadonlyArray<PropertyKey>): string[] {
  return keysAt(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }), path);
}

/**
 * Where and why a config is not JSON, without the text around the fault: V8 quotes it, and in a config that is often
 * the API key (`"apiKey": bvk_...` unquoted).
 */
export function jsonProblem(text: string, message: string): string {
  const reason = /^Unexpected token '.'/s.exec(message)?.[0] ?? message.split(/\s+in JSON at position/)[0]!;
  let position = Number(/at position (\d+)/.exec(message)?.[1] ?? Number.NaN);
  const token = /^Unexpected token '(.)'/.exec(message)?.[1];
  // This form names the character but not where it is: placed only when it is the file's first (a YAML file, say).
  if (Number.isNaN(position) && token !== undefined) {
    const first = text.search(/\S/);
    if (first >= 0 && text[first] === token) position = first;
  }
  const where = Number.isNaN(position)
    ? ''
    : ` at line ${text.slice(0, position).split('\n').length}, column ${position - text.lastIndexOf('\n', position - 1)}`;
  const hint = /^\s*[{[]/.test(text) ? '' : ' (a bvsync config is one JSON object: docs/configuration.md)';
  return `not valid JSON${where}: ${reason}${hint}`;
}

function readJsonObject(path: string, source: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = errnoOf(error);
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'this user may not read it' : undefined;
    throw new ConfigError(source, [
      `cannot read the file: ${code ?? String(error)}${why ? ` (${why})` : ''}; check the path given with -c or BVSYNC_CONFIG`,
    ]);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(source, [jsonProblem(text, (error as Error).message)]);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(source, ['expected a JSON object at the top level']);
  }
  return value as Record<string, unknown>;
}

/** Puts the environment's settings over the file's; returns which variable gave each setting it set. */
function applyEnv(
  raw: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  secretOptions: SecretFileOptions,
): Map<string, string> {
  const fromEnv = new Map<string, string>();
  raw.api ??= {};
  if (typeof raw.api !== 'object' || raw.api === null) return fromEnv;
  // Sets a setting by its path, making the objects on the way: `redis.tls.caFile`. An unset or empty variable sets none.
  const set = (setting: string, variable: string, value: unknown = env[variable]) => {
    if (value === undefined || value === '') return;
    const keys = setting.split('.');
    const last = keys.pop()!;
    let target = raw;
    for (const key of keys) target = (target[key] ??= {}) as Record<string, unknown>;
    target[last] = value;
    fromEnv.set(setting, variable);
  };
  // Each secret setting also reads from a file, `<NAME>_FILE` (src/config/secret-file.ts).
  const setSecret = (setting: string, name: string) => {
    const secret = secretFromEnv(env, name, secretOptions);
    if (secret) set(setting, secret.variable, secret.value);
  };
  set('api.url', 'BVSYNC_API_URL');
  setSecret('api.apiKey', 'BVSYNC_API_KEY');
  set('db', 'BVSYNC_DB');
  set('redisPrefix', 'BVSYNC_REDIS_PREFIX');
  setSecret('redisUrl', 'REDIS_URL');
  setSecret('redis.password', 'REDIS_PASSWORD');
  set('redis.tls.caFile', 'REDIS_CA_FILE');
  set('warehouse.memoryLimit', 'BVSYNC_DUCKDB_MEMORY_LIMIT');
  // Left as text when it is not a number, so the schema names the variable's bad value instead of a silent default.
  const threads = env.BVSYNC_DUCKDB_THREADS;
  if (threads) set('warehouse.threads', 'BVSYNC_DUCKDB_THREADS', /^\d+$/.test(threads) ? Number(threads) : threads);
  if (env.BVSYNC_BRANDS !== undefined && env.BVSYNC_BRANDS.trim() !== '') {
    raw.brands = parseBrandList(env.BVSYNC_BRANDS, 'the environment (BVSYNC_BRANDS)');
  }
  return fromEnv;
}

/**
 * What the environment says about this process alone, not about the warehouse it syncs.
 * Read here, beside the config, so no other module reads `process.env` (docs/architecture.md, "Layers").
 */
export interface ProcessSettings {
  /** `BVSYNC_LEASE_TTL_MS`: how long a dead writer's DuckDB lease outlives it; default the engine's (15 s). */
  leaseTtlMs?: number;
  /** `BVSYNC_JOB_LOCK_MS`: BullMQ's job lock and stalled-check interval (a dead process's jobs wait one to three); default 30 s. */
  jobLockMs?: number;
  /** `BVSYNC_REDIS_OUTAGE_MS`: how long a `sync` or `backfill` waits for a Redis that stopped answering; default 60 s. */
  redisOutageMs?: number;
  /** `BVSYNC_LOG_LEVEL`: trace, debug, info, warn, error or silent; default info. */
  logLevel?: string;
  /** `BVSYNC_DEBUG`: an unexpected error prints its stack too; default off. */
  debug: boolean;
  /** `BVSYNC_TODAY`: the UTC day this process takes as today, for tests against a simulator's fixed day; default the real one. */
  today?: string;
}

/** The process settings from the environment; a timing that is no whole number of milliseconds is a `ConfigError`. */
export function loadProcessSettings(env: NodeJS.ProcessEnv = process.env): ProcessSettings {
  const problems: string[] = [];
  const milliseconds = (name: string): number | undefined => {
    const text = env[name];
    if (text === undefined || text === '') return undefined;
    const value = Number(text);
    if (Number.isInteger(value) && value >= 500 && value <= 3_600_000) return value;
    problems.push(`${name}="${text}" is not a whole number of milliseconds from 500 to 3600000`);
    return undefined;
  };
  const settings: ProcessSettings = {
    leaseTtlMs: milliseconds('BVSYNC_LEASE_TTL_MS'),
    jobLockMs: milliseconds('BVSYNC_JOB_LOCK_MS'),
    redisOutageMs: milliseconds('BVSYNC_REDIS_OUTAGE_MS'),
    logLevel: env.BVSYNC_LOG_LEVEL || undefined,
    debug: Boolean(env.BVSYNC_DEBUG),
  };
  const today = env.BVSYNC_TODAY;
  if (today !== undefined && today !== '') {
    if (isDay(today)) settings.today = today;
    else
      problems.push(
        `BVSYNC_TODAY="${today}" is not a day; give YYYY-MM-DD, e.g. 2026-11-20, or leave it unset for the real today`,
      );
  }
  if (problems.length) throw new ConfigError('the environment', problems);
  return settings;
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
