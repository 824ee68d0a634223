import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * The request budget of one API key. Every HTTP request of the client takes one unit first; a 429 blocks the
 * key for the `Retry-After` it names, for every holder of the budget (every process, with the Redis one).
 */
export interface RateBudget {
  /** Resolves when one more request may be sent; rejects when `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** No request of this key goes out for `ms` (a longer block already in place is kept). */
  blockFor(ms: number): Promise<void>;
}

export interface RateBudgetOptions {
  /** Requests per second for the key (`api.requestsPerSecond`, default 10). */
  requestsPerSecond: number;
}

export interface RedisRateBudgetOptions extends RateBudgetOptions {
  redis: Redis;
  /** The API key the budget belongs to; only a hash of it is written to Redis. */
  apiKey: string;
  /** Prefix of the Redis keys (`redisPrefix` of the config, default `bvsync`). */
  prefix: string;
}

/**
 * A budget shared by every process through Redis, on rate-limiter-flexible's `RateLimiterRedis`: one atomic
 * Lua INCR+PEXPIRE per request on a 1-second window, with `execEvenly` so the requests of a window are spread
 * over it rather than sent in one burst at its start.
 */
export function createRedisRateBudget(options: RedisRateBudgetOptions): RateBudget {
  const { points, duration } = windowFor(options.requestsPerSecond);
  const limiter = new RateLimiterRedis({
    storeClient: options.redis,
    keyPrefix: `${options.prefix}:rate`,
    points,
    duration,
    execEvenly: true,
  });
  return new LimiterRateBudget(limiter, keyHash(options.apiKey));
}

/** The same budget for a single process (tests, a one-off command without Redis). */
export function createMemoryRateBudget(options: RateBudgetOptions): RateBudget {
  const { points, duration } = windowFor(options.requestsPerSecond);
  return new LimiterRateBudget(new RateLimiterMemory({ points, duration, execEvenly: true }), 'key');
}

/** A budget that never waits: for tests of other concerns. */
export const UNLIMITED_RATE_BUDGET: RateBudget = { acquire: async () => {}, blockFor: async () => {} };

/** The Redis key part that names an API key: a hash, so the key itself never lands in Redis. */
export function keyHash(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

/**
 * rate-limiter-flexible counts whole points over windows of whole seconds (its Redis store drops the expiry
 * of a window shorter than one second), so a fractional rate becomes one point per `ceil(1/rps)` seconds.
 */
export function windowFor(requestsPerSecond: number): { points: number; duration: number } {
  if (!(requestsPerSecond > 0)) throw new RangeError('requestsPerSecond must be positive');
  if (requestsPerSecond >= 1) return { points: Math.floor(requestsPerSecond), duration: 1 };
  return { points: 1, duration: Math.ceil(1 / requestsPerSecond) };
}

class LimiterRateBudget implements RateBudget {
  constructor(
    private readonly limiter: RateLimiterAbstract,
    private readonly key: string,
  ) {}

  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      try {
        await this.limiter.consume(this.key);
        return;
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        // A little jitter so the waiters of every process do not all wake on the same millisecond.
        await sleep(rejection.msBeforeNext + Math.floor(Math.random() * 25), signal);
      }
    }
  }

  async blockFor(ms: number): Promise<void> {
    if (!(ms > 0)) return;
    const current = await this.limiter.get(this.key);
    if (current && current.consumedPoints > this.limiter.points && current.msBeforeNext >= ms) return;
    // Whole seconds: the Redis store cannot expire a shorter block (see windowFor).
    await this.limiter.block(this.key, Math.ceil(ms / 1000));
  }
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
