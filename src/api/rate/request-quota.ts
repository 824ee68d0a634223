import { AsyncLocalStorage } from 'node:async_hooks';
import type { Redis, Result } from 'ioredis';
import { redisKeys, type RedisKeys } from '../../redis-keys.js';
import { keyHash, type RateBudget } from './rate-budget.js';
import { backfillShare } from '../../config/budget-window.js';

/**
 * The request budget of an API key per window, shared by every process through Redis: each request takes a unit in one
 * Lua script, so none goes past the line; backfills get only what `api.reservedForSync` leaves (docs/quota.md).
 */

/** Who a request is for: an incremental run (sync, scheduled) may spend the whole window, a backfill only its share. */
export type QuotaClass = 'sync' | 'backfill';

export interface QuotaSettings {
  /** Requests per window (`api.dailyRequestBudget`). */
  budget: number;
  /** Length of a window in ms (`api.requestBudgetWindow`); windows start at multiples of it since the epoch (UTC midnight for a day). */
  windowMs: number;
  /** Share of each window kept for incremental runs (`api.reservedForSync`). */
  reservedForSync: number;
}

export interface QuotaWindow {
  index: number;
  start: number;
  end: number;
}

export type QuotaAnswer = { granted: true } | { granted: false; resumesAt: number };

export interface QuotaState {
  window: QuotaWindow;
  spent: number;
  /** Until when a long 429 said the quota is spent, when it says so still (ms, on the quota's clock). */
  blockedUntil?: number;
}

/** A request that found its class's share of the window spent: its slice waits for `resumesAt` (ms, on the quota's clock). */
export class QuotaWaitError extends Error {
  readonly code = 'quota_wait';
  constructor(readonly resumesAt: number) {
    super(
      `the request budget of this window is spent (api.dailyRequestBudget); the slice waits until ${new Date(resumesAt).toISOString()}`,
    );
    this.name = 'QuotaWaitError';
  }
}

/** Counter keys live past their window's end this long, so `status` can still read the window just over. */
const COUNTER_SPARE_MS = 60 * 60_000;

/**
 * KEYS: the window's counter, the block. ARGV: limit, units, now (quota clock), counter ttl (ms), take (1) or only look (0).
 * Returns {1} when granted, {0, n} when `n` units would pass the limit, {-1, until} while a long 429's block holds.
 */
const TAKE = `
local blocked = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
if blocked > tonumber(ARGV[3]) then return {-1, tostring(blocked)} end
local spent = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if spent + tonumber(ARGV[2]) > tonumber(ARGV[1]) then return {0, spent} end
if ARGV[5] == '1' then
  redis.call('INCRBY', KEYS[1], ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
return {1, spent}
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    bvsyncQuotaTake(counter: string, block: string, ...args: string[]): Result<[number, string | number], Context>;
  }
}

export interface RequestQuotaOptions {
  redis: Redis;
  prefix: string;
  /** Only its hash is written to Redis. */
  apiKey: string;
  settings: QuotaSettings;
  /** The clock windows are read by (ms since the epoch); default `Date.now`. The tests share the simulator's. */
  clock?: () => number;
}

export class RequestQuota {
  readonly clock: () => number;
  private readonly keys: RedisKeys;
  private readonly hash: string;

  constructor(private readonly options: RequestQuotaOptions) {
    this.clock = options.clock ?? Date.now;
    this.keys = redisKeys(options.prefix);
    this.hash = keyHash(options.apiKey);
    if (!options.redis.bvsyncQuotaTake) options.redis.defineCommand('bvsyncQuotaTake', { numberOfKeys: 2, lua: TAKE });
  }

  get settings(): QuotaSettings {
    return this.options.settings;
  }

  /** The requests a class may send per window: all of it for sync runs, the unreserved share for backfills. */
  limitOf(kind: QuotaClass): number {
    const { budget, reservedForSync } = this.options.settings;
    return kind === 'sync' ? budget : backfillShare(budget, reservedForSync);
  }

  windowAt(now: number): QuotaWindow {
    const { windowMs } = this.options.settings;
    const index = Math.floor(now / windowMs);
    return { index, start: index * windowMs, end: (index + 1) * windowMs };
  }

  /** Takes a unit of the class's share of the current window, or says when the next window begins. */
  take(kind: QuotaClass): Promise<QuotaAnswer> {
    return this.ask(kind, 1, true);
  }

  /**
   * Whether `units` would fit now, taking nothing: a slice is not begun when its estimate does not fit. An estimate past
   * the class's whole share asks for all of it, so it fits an unspent window (test/api/request-quota.int.test.ts).
   */
  fits(kind: QuotaClass, units: number): Promise<QuotaAnswer> {
    return this.ask(kind, Math.min(units, this.limitOf(kind)), false);
  }

  private async ask(kind: QuotaClass, units: number, take: boolean): Promise<QuotaAnswer> {
    const now = this.clock();
    const window = this.windowAt(now);
    const [granted, value] = await this.options.redis.bvsyncQuotaTake(
      this.keys.quotaSpent(this.hash, window.index),
      this.keys.quotaBlock(this.hash),
      String(this.limitOf(kind)),
      String(units),
      String(now),
      String(window.end - now + COUNTER_SPARE_MS),
      take ? '1' : '0',
    );
    if (granted === 1) return { granted: true };
    if (granted === -1) return { granted: false, resumesAt: Number(value) };
    return { granted: false, resumesAt: window.end };
  }

  /** Real ms until `at` (quota clock), at least a second: how long a parked slice or a block waits. */
  msUntil(at: number): number {
    return Math.max(1_000, at - this.clock());
  }

  /** A 429 whose Retry-After is hours: the key's quota is spent until `until` (quota clock), whatever the ledger counted. */
  async spentUntil(until: number): Promise<void> {
    const key = this.keys.quotaBlock(this.hash);
    const current = Number((await this.options.redis.get(key)) ?? 0);
    if (current >= until) return;
    // Kept in real time as long as the quota clock says, and a window more: its value, not its ttl, is what is read.
    await this.options.redis.set(key, String(until), 'PX', this.msUntil(until) + this.options.settings.windowMs);
  }

  async state(): Promise<QuotaState> {
    const now = this.clock();
    const window = this.windowAt(now);
    const [spent, blocked] = await this.options.redis.mget(
      this.keys.quotaSpent(this.hash, window.index),
      this.keys.quotaBlock(this.hash),
    );
    const blockedUntil = Number(blocked ?? 0);
    return { window, spent: Number(spent ?? 0), ...(blockedUntil > now ? { blockedUntil } : {}) };
  }
}

const scope = new AsyncLocalStorage<QuotaClass>();

/** Runs `work` with its requests counted against `kind`'s share; requests outside any scope are not counted. */
export function withQuotaClass<T>(kind: QuotaClass, work: () => Promise<T>): Promise<T> {
  return scope.run(kind, work);
}

/** The class of the requests being made here, if any (the fetch thread pool sends it with its slices). */
export function currentQuotaClass(): QuotaClass | undefined {
  return scope.getStore();
}

/**
 * The rate budget with the request budget in front of it: a request of a fetch job takes a unit of the window after its
 * turn at the rate gate, as it leaves; one that finds its share spent throws QuotaWaitError instead of being sent.
 */
export function withRequestQuota(budget: RateBudget, quota: RequestQuota): RateBudget {
  return {
    acquire: async (signal) => {
      await budget.acquire(signal);
      const kind = scope.getStore();
      if (kind === undefined) return;
      const answer = await quota.take(kind);
      if (!answer.granted) throw new QuotaWaitError(answer.resumesAt);
    },
    blockFor: (ms) => budget.blockFor(ms),
    observe: (answer) => budget.observe(answer),
    ...(budget.close ? { close: () => budget.close!() } : {}),
  };
}
