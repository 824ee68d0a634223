import { prefixWarehouse } from '../../engine/writer/prefix-warehouse.js';
import { connectForCommand, isConfigProblem, LOCAL_REDIS_URL, pingRedis } from '../../engine/redis/redis.js';
import { describeRedisAddress } from '../../redis-address.js';
import { publishedWarehouseId, warehouseIdentity, warehouseLine } from '../status/warehouse-line.js';
import type { ApiClient } from '../../api/client.js';
import { answerOf, probeBrandAccess, wrongUrlReason } from '../brand-access-probe.js';
import { ApiError, AuthError, BrandAccessDeniedError, NotFoundError, QuotaExceededError } from '../../api/errors.js';
import { missingApiSettings } from '../../config/api-settings.js';
import { errorMessage, formatDuration } from '../../format.js';
import { measureDiskRoom } from '../../warehouse/file/disk-need.js';
import { memoryLimitWarning } from '../../warehouse/file/duckdb-budget.js';
import { existsSync } from 'node:fs';
import { openReadOnly } from '../../warehouse/publish/published-database.js';
import { DRIFT_ADVICE, tableDrift, tableDriftLine } from '../status/schema-drift-lines.js';
import { lookbackWindowDays } from '../../engine/plan/plan.js';
import type { Config } from '../../configuration.js';

/** One line of doctor's checks before the parameter table. */
export interface DoctorCheck {
  ok: boolean;
  /** One line: what was checked and, on failure, why. */
  line: string;
  /** Passed, with something to look at (printed `warn`): it stops nothing. */
  warning?: boolean;
}

export type AddCheck = (ok: boolean, line: string) => boolean;

/** The settings nothing can run without; each missing one is named with its environment variable. */
export function checkRequired(config: Config, add: AddCheck): boolean {
  const missing = [
    ...missingApiSettings(config.api),
    ...(config.brands.length === 0 ? ['brands (BVSYNC_BRANDS)'] : []),
  ];
  return add(
    missing.length === 0,
    missing.length
      ? `config: missing ${missing.join(', ')}`
      : `config: ${config.brands.length} brand(s), API ${config.api.url}`,
  );
}

/**
 * The free space of the warehouse's volume against what the next sync may need (src/warehouse/file/disk-need.ts): a warning
 * when below, as the preflight of `sync`, `backfill` and `worker` gives.
 */
export async function checkDiskRoom(config: Config, report: (check: DoctorCheck) => void): Promise<void> {
  const room = await measureDiskRoom(config.db, lookbackWindowDays(config.sync), config.warehouse.memoryLimit).catch(
    () => undefined,
  );
  if (room) report({ ok: true, warning: room.short, line: `disk: ${room.line}` });
}

/** DuckDB's memory limit against the one syncs were seen safe at (src/warehouse/file/duckdb-budget.ts): a warning when below. */
export function checkMemoryLimit(config: Config, report: (check: DoctorCheck) => void): void {
  const warning = memoryLimitWarning(config.warehouse.memoryLimit);
  if (warning) report({ ok: true, warning: true, line: `memory: ${warning}` });
}

/**
 * The check every command that uses Redis makes: it answers PING, with the reason when not, has the URL's database,
 * and is the kind of server the address names (a replica, a Sentinel's port, a Cluster node are named, with what to set).
 */
export async function checkRedis(config: Config, add: AddCheck): Promise<boolean> {
  const url = config.redisUrl ?? LOCAL_REDIS_URL;
  try {
    await pingRedis(url, { prefix: config.redisPrefix });
    return add(true, `redis: ${describeRedisAddress(url)} answers PING`);
  } catch (error) {
    const message = errorMessage(error);
    return add(
      false,
      isConfigProblem(error)
        ? `redis: ${message}`
        : `redis: ${describeRedisAddress(url)}: ${message} (set REDIS_URL, or run \`docker compose up -d redis\`)`,
    );
  }
}

/**
 * The published copy's warehouse id against the one the Redis prefix records: a writer of another file under the prefix
 * refuses it (src/engine/writer/prefix-warehouse.ts). Asked only of a Redis that answered PING.
 */
export async function checkWarehouse(config: Config, add: AddCheck): Promise<void> {
  const connection = connectForCommand(config.redisUrl ?? LOCAL_REDIS_URL);
  try {
    const recorded = await prefixWarehouse(connection, config.redisPrefix);
    const published = await publishedWarehouseId(config.db).catch(() => null);
    const identity = warehouseIdentity(config.redisPrefix, published, recorded);
    add(identity.matches !== false, warehouseLine(identity, config.db));
  } catch (error) {
    add(
      false,
      `warehouse: could not read the id the Redis prefix "${config.redisPrefix}" records: ${(error as Error).message}`,
    );
  } finally {
    connection.disconnect();
  }
}

/**
 * Any eviction policy but `noeviction` lets a full Redis drop the queues' keys and so lose jobs: a warning. A Redis
 * that forbids INFO says nothing (test/cli/doctor-redis-eviction.int.test.ts).
 */
export async function checkEvictionPolicy(config: Config, report: (check: DoctorCheck) => void): Promise<void> {
  const connection = connectForCommand(config.redisUrl ?? LOCAL_REDIS_URL);
  try {
    const policy = /^maxmemory_policy:(\S+)/m.exec(await connection.info('memory'))?.[1];
    if (policy && policy !== 'noeviction')
      report({
        ok: true,
        warning: true,
        line: `redis: maxmemory-policy is ${policy}: a full Redis may evict the queues' keys and lose jobs; set it to noeviction`,
      });
  } catch {
    // INFO refused or unanswered: the kind of eviction is not known, and nothing else depends on it.
  } finally {
    connection.disconnect();
  }
}

/**
 * A line per table of the published file whose rows hold what the spec does not show (docs/schema-drift.md), as a
 * warning: it stops nothing. Nothing when the file is missing or records no drift.
 */
export async function checkSchemaDrift(config: Config, report: (check: DoctorCheck) => void): Promise<void> {
  if (!existsSync(config.db)) return;
  const db = await openReadOnly(config.db).catch(() => undefined);
  if (!db) return;
  try {
    const drift = await tableDrift(db.connection);
    for (const table of drift ?? [])
      report({ ok: true, warning: true, line: `schema drift: ${tableDriftLine(table)}` });
    if (drift?.length) report({ ok: true, warning: true, line: `schema drift: ${DRIFT_ADVICE}` });
  } finally {
    db.close();
  }
}

/** That the API answers and takes the key, then which brands the key reads; returns the readable brands. */
export async function checkApiAndBrands(client: ApiClient, config: Config, add: AddCheck): Promise<number[]> {
  const [first] = config.brands;
  // Any HTTP answer, even a refusal, shows the API is there; a 401 means the key is wrong for all of it.
  try {
    const access = await probeBrandAccess(client, first!);
    add(true, `api: ${config.api.url} answers`);
    // The endpoint's own check (below, in the table) says whether a synced stream needs it.
    if (access.listRefused)
      add(
        true,
        `api: the key is accepted (the competitors list is refused, ${answerOf(access.listRefused)}, the content analyses answered)`,
      );
  } catch (error) {
    if (error instanceof AuthError) {
      add(false, `api: the key is refused: ${errorMessage(error)}`);
      return [];
    }
    // A 404 may be one brand's; a TLS handshake that fails is the URL's whatever the brand (404s are judged below).
    const wrongUrl = error instanceof ApiError && !(error instanceof NotFoundError) ? wrongUrlReason(error) : undefined;
    if (wrongUrl) {
      add(
        false,
        `api: ${wrongUrl}; check BVSYNC_API_URL (config "api.url", now ${config.api.url}): it is the API's base URL, before /customer/v1`,
      );
      return [];
    }
    if (!(error instanceof ApiError) || error.status === undefined) {
      add(false, `api: no answer from ${config.api.url}: ${errorMessage(error)}`);
      return [];
    }
    add(true, `api: ${config.api.url} answers`);
  }
  const readable: number[] = [];
  let notFound = 0;
  for (const brand of config.brands) {
    try {
      const access = await probeBrandAccess(client, brand);
      readable.push(brand);
      add(
        true,
        `brand ${brand}: readable${access.listRefused ? ' (by its content analyses: its competitors list is refused)' : ''}`,
      );
    } catch (error) {
      if (error instanceof NotFoundError) notFound++;
      const why =
        error instanceof BrandAccessDeniedError
          ? 'the key has no access to it (brand_access_denied)'
          : error instanceof QuotaExceededError
            ? `the key's request quota is spent${error.retryAfterMs === undefined ? '' : `, back in ${formatDuration(error.retryAfterMs / 1000)}`} (${errorMessage(error)}); run doctor again once it is back`
            : errorMessage(error);
      add(false, `brand ${brand}: ${why}`);
    }
  }
  // Every brand's path unknown to the server is the URL's fault, as the preflight says of it.
  if (notFound > 0 && notFound === config.brands.length) {
    add(
      false,
      `api: no brand's competitors list is at ${config.api.url} (HTTP 404 for every brand); check BVSYNC_API_URL (config "api.url"): it is the API's base URL, before /customer/v1`,
    );
  }
  return readable;
}
