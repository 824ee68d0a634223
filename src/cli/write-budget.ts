import { createMemoryRateBudget, configuredRateBudget, type RateBudget } from '../api/rate-budget.js';
import { connectRedis, LOCAL_REDIS_URL } from '../engine/redis/redis.js';
import type { Logger } from '../log.js';
import type { Config } from '../configuration.js';

/**
 * The rate budget of `plan` and `apply`: the workers' one in Redis when a Redis answers, so writes and a sync share the
 * key's rate; else one of this process alone, as a plan needs no Redis and starts none.
 */
export async function writeBudget(config: Config, log: Logger): Promise<{ budget: RateBudget; close(): void }> {
  const memory = () => ({
    budget: createMemoryRateBudget({ requestsPerSecond: config.api.requestsPerSecond }),
    close: () => undefined,
  });
  const redis = connectRedis(config.redisUrl ?? LOCAL_REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 1500,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    await redis.ping();
  } catch {
    redis.disconnect();
    log.debug("no Redis answers: the rate budget is this process's alone");
    return memory();
  }
  // Writes are paced at the whole ceiling: no RATE_HEADROOM, which is for reads.
  const budget = configuredRateBudget(config, redis, { logger: log });
  return { budget, close: () => redis.disconnect() };
}
