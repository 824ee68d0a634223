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
 * A budget shared by every process through Redis, on rate-limiter-flexible's `RateLimiterRedis` (one atomic Lua
 * INCR+EXPIRE per request). Its windows are whole seconds, which would let a whole second's requests leave in
 * one burst, so the budget counts per sub-second slot instead: the key of the counter names the slot
 * (`floor(now / slotMs)`), each slot allows `perSlot` requests (about a fifth of the rate). A 429 blocks the key
 * with the same library's `block`, which every process checks before taking a unit.
 */
export function createRedisRateBudget(options: RedisRateBudgetOptions): RateBudget {
  const slots = slotsFor(options.requestsPerSecond);
  const keyPrefix = `${options.prefix}:rate`;
  const counter = new RateLimiterRedis({ storeClient: options.redis, keyPrefix, points: slots.perSlot, duration: slots.counterTtlSeconds });
  const blocker = new RateLimiterRedis({ storeClient: options.redis, keyPrefix: `${keyPrefix}-block`, points: 1, duration: 1 });
  return new SlottedRateBudget(counter, blocker, keyHash(options.apiKey), slots.slotMs);
}

/** The same budget for a single process (tests, a one-off command without Redis). */
export function createMemoryRateBudget(options: RateBudgetOptions): RateBudget {
  const slots = slotsFor(options.requestsPerSecond);
  const counter = new RateLimiterMemory({ points: slots.perSlot, duration: slots.counterTtlSeconds });
  const blocker = new RateLimiterMemory({ points: 1, duration: 1 });
  return new SlottedRateBudget(counter, blocker, 'key', slots.slotMs);
}

/** A budget that never waits: for tests of other concerns. */
export const UNLIMITED_RATE_BUDGET: RateBudget = { acquire: async () => {}, blockFor: async () => {} };

/** The Redis key part that names an API key: a hash, so the key itself never lands in Redis. */
export function keyHash(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

/** Slots of about a fifth of a second: at most `perSlot` requests leave together, `rps` per second in all. */
export const TARGET_SLOTS_PER_SECOND = 5;

export interface RateSlots {
  perSlot: number;
  slotMs: number;
  /** Expiry of a slot's counter (whole seconds, the store's unit); slots are never reused, so it only cleans up. */
  counterTtlSeconds: number;
}

export function slotsFor(requestsPerSecond: number): RateSlots {
  if (!(requestsPerSecond > 0) || !Number.isFinite(requestsPerSecond)) throw new RangeError('requestsPerSecond must be positive');
  const perSlot = Math.max(1, Math.round(requestsPerSecond / TARGET_SLOTS_PER_SECOND));
  const slotMs = (perSlot * 1000) / requestsPerSecond;
  return { perSlot, slotMs, counterTtlSeconds: Math.max(1, Math.ceil(slotMs / 1000)) };
}

class SlottedRateBudget implements RateBudget {
  constructor(
    private readonly counter: RateLimiterAbstract,
    private readonly blocker: RateLimiterAbstract,
    private readonly key: string,
    private readonly slotMs: number,
  ) {}

  async acquire(signal?: AbortSignal): Promise<void> {
    for (;;) {
      signal?.throwIfAborted();
      const blockedMs = await this.blockedMs();
      if (blockedMs > 0) {
        await sleep(blockedMs + jitter(), signal);
        continue;
      }
      const now = Date.now();
      const slot = Math.floor(now / this.slotMs);
      try {
        await this.counter.consume(`${this.key}:${slot}`);
        return;
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        await sleep((slot + 1) * this.slotMs - now + jitter(), signal);
      }
    }
  }

  async blockFor(ms: number): Promise<void> {
    if (!(ms > 0)) return;
    if ((await this.blockedMs()) >= ms) return;
    // Whole seconds: the store's unit (it cannot expire a shorter block).
    await this.blocker.block(this.key, Math.ceil(ms / 1000));
  }

  private async blockedMs(): Promise<number> {
    const state = await this.blocker.get(this.key);
    return state && state.consumedPoints > this.blocker.points ? state.msBeforeNext : 0;
  }
}

/** A few milliseconds, so the waiters of every process do not all wake on the same one. */
function jitter(): number {
  return Math.floor(Math.random() * 10);
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
