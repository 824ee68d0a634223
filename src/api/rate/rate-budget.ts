import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../../log.js';
import {
  AUTO_CEILING,
  afterRateLimited,
  afterStatedLimit,
  ceilingFor,
  initialRateState,
  learnedNothing,
  rateAt,
  sameStatedRate,
  type RateState,
} from './adaptive-rate.js';
import { isApiAbsence } from '../errors.js';
import { StatedRateReader } from './stated-rate.js';
import type { RateLimitSignals } from './rate-headers.js';
import { MemoryRateGate, RedisRateGate, type AcceptedCount, type GateAnswer, type RateGate } from './rate-gate.js';
import { MemoryRateStateStore, RedisRateStateStore, type RateStateStore } from './rate-state-store.js';
import { redisKeys } from '../../redis-keys.js';

/** Blocks this long or longer are said when a request waits on them. */
const BLOCK_TOLD_MS = 5_000;

/**
 * The request budget of one API key: every HTTP request takes a unit first. A 429 cuts the rate for every holder and
 * blocks the key for its `Retry-After`; rate-limit headers state the rate (adaptive-rate.ts, stated-rate.ts).
 */
export interface RateBudget {
  /** Resolves when one more request may be sent; rejects when `signal` aborts. */
  acquire(signal?: AbortSignal): Promise<void>;
  /** No request of this key goes out for `ms` (a longer block already in place is kept). */
  blockFor(ms: number): Promise<void>;
  /** Tells the budget how an answer went: a 429 cuts the rate, other answers count as accepted, a 5xx or 408 neither. */
  observe(answer: BudgetAnswer): Promise<void>;
  /**
   * Hands on what it holds (answers counted but not yet shared) and stops its timers; the client calls it when it
   * closes, before its owner closes Redis. Best effort: it never throws.
   */
  close?(): Promise<void>;
}

export interface BudgetAnswer {
  status: number;
  /** When its request was sent (ms since the epoch): a 429 of a request sent before the last cut cuts nothing more. */
  sentAt: number;
  /** What its rate-limit headers said (rate-headers.ts), if any. */
  signals?: RateLimitSignals | undefined;
}

/**
 * Reads leave at this share of `api.requestsPerSecond`: arrival jitter bunches a client paced at exactly the limit into
 * some of the API's windows, and each 429 pauses the key. Kept here so `bvsync rate` need not load the worker.
 */
export const RATE_HEADROOM = 0.95;

/** `api.requestsPerSecond`: a ceiling, or `auto` to start low and find the API's limit. */
export type RequestsPerSecond = number | 'auto';

export interface RateBudgetOptions {
  /** The ceiling of the key's rate (`api.requestsPerSecond`, default 10), or `auto`. */
  requestsPerSecond: RequestsPerSecond;
  /** Share of a ceiling (configured or stated by the API) that requests are paced at; default 1. */
  headroom?: number | undefined;
  /** Where rate changes are logged; default: silent. */
  logger?: Logger | undefined;
  /**
   * While the key's shared state holds nothing stated or learned, the first request of this process goes alone and the
   * others wait for its answer (FIRST_ANSWER_WAIT_MS at most), whose headers may state the API's rate; default false.
   */
  firstAnswerFirst?: boolean | undefined;
}

export interface RedisRateBudgetOptions extends RateBudgetOptions {
  redis: Redis;
  /** The API key the budget belongs to; only a hash of it is written to Redis. */
  apiKey: string;
  /** Prefix of the Redis keys (`redisPrefix` of the config, default `bvsync`). */
  prefix: string;
}

/**
 * A budget shared by every process through Redis. Requests are counted per sub-second slot so a second's requests
 * never leave in one burst; each request's turn is one atomic Lua script (rate-gate.ts).
 */
export function createRedisRateBudget(options: RedisRateBudgetOptions): RateBudget {
  const keys = redisKeys(options.prefix);
  const hash = keyHash(options.apiKey);
  return new AdaptiveRateBudget(
    new RedisRateGate(options.redis, keys, hash),
    new RedisRateStateStore(options.redis, keys, hash),
    options,
  );
}

/** The API and Redis settings a budget is made from: the config's `api` and `redisPrefix`. */
export interface RateBudgetConfig {
  redisPrefix: string;
  api: { apiKey?: string | undefined; requestsPerSecond: RequestsPerSecond };
}

/** The key's budget shared through Redis, which every command calling the API paces with; reads at RATE_HEADROOM. */
export function configuredRateBudget(
  config: RateBudgetConfig,
  redis: Redis,
  options: Omit<RateBudgetOptions, 'requestsPerSecond'> = {},
): RateBudget {
  return createRedisRateBudget({
    ...options,
    headroom: options.headroom ?? RATE_HEADROOM,
    redis,
    prefix: config.redisPrefix,
    apiKey: config.api.apiKey ?? '',
    requestsPerSecond: config.api.requestsPerSecond,
  });
}

/** The same budget for a single process (tests, a one-off command without Redis). */
export function createMemoryRateBudget(options: RateBudgetOptions): RateBudget {
  return new AdaptiveRateBudget(new MemoryRateGate(), new MemoryRateStateStore(), options);
}

/** A budget that never waits: for tests of other concerns. */
export const UNLIMITED_RATE_BUDGET: RateBudget = {
  acquire: async () => {},
  blockFor: async () => {},
  observe: async () => {},
};

/** The Redis key part that names an API key: a hash, so the key itself never lands in Redis. */
export function keyHash(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

/** Slots of about a fifth of a second: at most `perSlot` requests leave together, `rps` per second in all. */
const TARGET_SLOTS_PER_SECOND = 5;

export function slotsFor(requestsPerSecond: number): { perSlot: number; slotMs: number } {
  if (!(requestsPerSecond > 0) || !Number.isFinite(requestsPerSecond))
    throw new RangeError('requestsPerSecond must be positive');
  const perSlot = Math.max(1, Math.round(requestsPerSecond / TARGET_SLOTS_PER_SECOND));
  const slotMs = (perSlot * 1000) / requestsPerSecond;
  return { perSlot, slotMs };
}

/**
 * Units slot `slot` allows at `perSlot` units per slot on average (a fraction below 1 at low rates): the slots
 * share the rate out like a line drawn on a grid, so over any run of slots the total is within one of the rate.
 */
export function slotAllowance(slot: number, perSlot: number): number {
  return Math.floor(perSlot * (slot + 1)) - Math.floor(perSlot * slot);
}

/** The first slot after `slot` that allows a unit at `perSlot`. */
export function nextAllowingSlot(slot: number, perSlot: number): number {
  const nextUnit = Math.floor(perSlot * (slot + 1)) + 1;
  return Math.max(slot + 1, Math.ceil(nextUnit / perSlot) - 1);
}

/** A waiting `acquire` looks again at least this often, so a rate that rises is used soon. */
const MAX_WAIT_MS = 1_000;
/** How long one process trusts the shared state it read; a 429's Retry-After block is checked on every turn. */
const STATE_CACHE_MS = 100;
/** The longest an accepted answer waits to be counted in Redis when no turn takes it sooner. */
const UNCOUNTED_MAX_MS = 100;
/** The longest the requests after a process's first wait for its answer (`firstAnswerFirst`). */
const FIRST_ANSWER_WAIT_MS = 2_000;
/** Attempts of a compare-and-set that other processes keep winning; each starts from what they wrote. */
const MAX_STATE_WRITES = 5;

/**
 * The ceiling a budget paces under before the API states any limit: the configured rate times the headroom, or
 * AUTO_CEILING for `auto`. A quota policy stated in headers lowers it for every process (`ceilingFor`).
 */
export function paceCeiling(options: Pick<RateBudgetOptions, 'requestsPerSecond' | 'headroom'>): number {
  const setting = options.requestsPerSecond;
  if (setting === 'auto') return AUTO_CEILING;
  if (!(setting > 0) || !Number.isFinite(setting)) throw new RangeError('requestsPerSecond must be positive or "auto"');
  return setting * (options.headroom ?? 1);
}

class AdaptiveRateBudget implements RateBudget {
  private readonly configuredCeiling: number;
  private readonly slotMs: number;
  private readonly headroom: number;
  private readonly auto: boolean;
  /** What the headers of this process's answers state; the rate they state is kept in the shared state. */
  private readonly statedReader = new StatedRateReader();
  /** The stated rate this process last logged, so each change is said once. */
  private toldStated = '';
  private cached: { state: RateState; version: number; readAt: number } | undefined;
  /**
   * Answers accepted and not yet counted in Redis: they go with the next turn, saving a round trip per answer, or
   * alone once held UNCOUNTED_MAX_MS, so a 429 in another process learns from them soon.
   */
  private uncounted: AcceptedCount | undefined;
  private uncountedTimer: NodeJS.Timeout | undefined;
  /** When the block last told of ends: each block is told once, however many calls wait on it. */
  private toldBlockEnd = 0;
  /** `firstAnswerFirst`: whether this process sent its first request, and its answer, once observed. */
  private firstSent = false;
  private readonly firstAnswer = promiseWithResolve();

  constructor(
    private readonly gate: RateGate,
    private readonly store: RateStateStore,
    private readonly options: RateBudgetOptions,
  ) {
    this.configuredCeiling = paceCeiling(options);
    this.slotMs = slotsFor(this.configuredCeiling).slotMs;
    this.headroom = options.headroom ?? 1;
    this.auto = options.requestsPerSecond === 'auto';
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    if (this.options.firstAnswerFirst && !this.firstAnswer.done) await this.awaitFirstAnswer(signal);
    for (;;) {
      signal?.throwIfAborted();
      const now = Date.now();
      const rate = await this.rate(now);
      const perSlot = (rate * this.slotMs) / 1000;
      const slot = Math.floor(now / this.slotMs);
      const allowance = slotAllowance(slot, perSlot);
      if (allowance > 0) {
        const accepted = this.takeUncounted();
        // A unit is due spread over its slot at the rate's spacing, not at the slot's start, so late units do not leave
        // in a burst over the API's window edge; the key's next free moment spaces them for every process.
        let answer: GateAnswer;
        try {
          answer = await this.gate.turn({
            now,
            slot,
            allowance,
            perSlot,
            slotMs: this.slotMs,
            spacingMs: 1000 / rate,
            accepted,
          });
        } catch (error) {
          if (accepted) this.giveBack(accepted);
          throw error;
        }
        if (answer.kind === 'blocked') {
          this.tellOfBlock(now, answer.ms);
          await sleep(answer.ms + jitter(), signal);
          continue;
        }
        if (answer.kind === 'leave') {
          // Under a millisecond is now: Date.now() and timers count whole ones.
          if (answer.at < Date.now() + 1) return;
          await sleep(answer.at - Date.now(), signal);
          if ((await this.gate.blockedMs()) === 0) return;
          continue;
        }
      }
      const wakeAt = Math.min(nextAllowingSlot(slot, perSlot) * this.slotMs, now + MAX_WAIT_MS);
      await sleep(wakeAt - now + jitter(), signal);
    }
  }

  /** A wait of seconds on a block set by an earlier answer is said once, so a command never sits silent. */
  private tellOfBlock(now: number, ms: number): void {
    const endsAt = now + ms;
    if (ms < BLOCK_TOLD_MS || Math.abs(endsAt - this.toldBlockEnd) < 1_000) return;
    this.toldBlockEnd = endsAt;
    this.options.logger?.info(
      { waitMs: ms, until: new Date(endsAt).toISOString() },
      'the API key is held back by an earlier answer of the API (a Retry-After): no request goes out until then',
    );
  }

  async blockFor(ms: number): Promise<void> {
    await this.gate.blockFor(ms);
  }

  /** The first request goes; the others wait for its answer while the state holds nothing stated or learned. */
  private async awaitFirstAnswer(signal: AbortSignal | undefined): Promise<void> {
    if (!this.firstSent) {
      this.firstSent = true;
      return;
    }
    const { state } = await this.current(Date.now());
    if (state.stated || state.cutAt > 0) return this.firstAnswer.resolve();
    const waited = new AbortController();
    const onAbort = () => waited.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await Promise.race([this.firstAnswer.promise, sleep(FIRST_ANSWER_WAIT_MS, waited.signal)]);
      // An answer that never comes (a request that failed unanswered) holds back no one twice.
      this.firstAnswer.resolve();
    } finally {
      signal?.removeEventListener('abort', onAbort);
      waited.abort();
    }
    signal?.throwIfAborted();
  }

  async observe(answer: BudgetAnswer): Promise<void> {
    // Its headers are learned first, so the requests that waited for it leave at the rate they state.
    if (answer.signals) await this.learn(answer.signals);
    this.firstAnswer.resolve();
    if (answer.status === 429) await this.cut(answer.sentAt);
    else if (!isApiAbsence(answer.status)) await this.countAccepted(Date.now());
  }

  /** Counts an accepted answer locally; a count of a second that is over goes to Redis at once. */
  private async countAccepted(now: number): Promise<void> {
    const second = Math.floor(now / 1000);
    if (this.uncounted && this.uncounted.second !== second) await this.flushUncounted();
    if (this.uncounted) {
      this.uncounted.count += 1;
      return;
    }
    this.uncounted = { second, count: 1 };
    this.uncountedTimer = setTimeout(() => {
      this.flushUncounted().catch((error: Error) =>
        this.options.logger?.warn({ err: error.message }, 'accepted answers could not be counted in Redis'),
      );
    }, UNCOUNTED_MAX_MS);
    this.uncountedTimer.unref();
  }

  async close(): Promise<void> {
    // The held counts' timer would flush them into a connection the command is about to close, and say so on stderr.
    await this.flushUncounted().catch(() => undefined);
  }

  private takeUncounted(): AcceptedCount | undefined {
    const held = this.uncounted;
    this.uncounted = undefined;
    clearTimeout(this.uncountedTimer);
    return held;
  }

  private async flushUncounted(): Promise<void> {
    const held = this.takeUncounted();
    if (!held) return;
    try {
      await this.gate.countAccepted(held);
    } catch (error) {
      this.giveBack(held);
      throw error;
    }
  }

  /**
   * Holds again a count Redis did not take, for the next turn, so the counts a 429 divides by stay whole. An earlier
   * count is dropped when a later second's is held: it has left the window `acceptedRate` reads.
   */
  private giveBack(held: AcceptedCount): void {
    if (!this.uncounted) this.uncounted = held;
    else if (this.uncounted.second === held.second) this.uncounted.count += held.count;
  }

  /** The ceiling in force: the configured one, or a quota policy the API stated if lower. */
  private ceiling(state: RateState | undefined): number {
    return ceilingFor(state, this.configuredCeiling, this.headroom);
  }

  private async rate(now: number): Promise<number> {
    const { state } = await this.current(now);
    return rateAt(state, now, this.ceiling(state));
  }

  /** The shared state, read at most every STATE_CACHE_MS; written afresh when absent (first use, or expired). */
  private async current(now: number, fresh = false): Promise<{ state: RateState; version: number }> {
    if (!fresh && this.cached && now - this.cached.readAt < STATE_CACHE_MS) return this.cached;
    for (let attempt = 0; ; attempt++) {
      const read = await this.store.read();
      if (read.state && learnedNothing(read.state, this.auto)) read.state = undefined;
      if (read.state || attempt >= MAX_STATE_WRITES) {
        const state = read.state ?? initialRateState(this.configuredCeiling, this.auto, now);
        // Trusted from when it came back, not when it was asked, so a slow Redis is not read again on every turn.
        this.cached = { state, version: read.version, readAt: Date.now() };
        return this.cached;
      }
      const initial = initialRateState(this.configuredCeiling, this.auto, now);
      if (await this.store.compareAndSet(read.version, initial)) {
        this.cached = { state: initial, version: read.version + 1, readAt: now };
        return this.cached;
      }
    }
  }

  /** Applies `change` to the shared state with compare-and-set; `change` returns undefined when nothing is to be done. */
  private async update(
    change: (state: RateState, now: number) => RateState | undefined,
  ): Promise<RateState | undefined> {
    for (let attempt = 0; attempt < MAX_STATE_WRITES; attempt++) {
      const now = Date.now();
      const { state, version } = await this.current(now, true);
      const next = change(state, now);
      if (!next) return undefined;
      if (await this.store.compareAndSet(version, next)) {
        this.cached = { state: next, version: version + 1, readAt: now };
        return next;
      }
    }
    return undefined;
  }

  private async cut(sentAt: number): Promise<void> {
    await this.flushUncounted();
    const goodRate = await this.gate.acceptedRate(Date.now());
    const before = this.cached ? rateAt(this.cached.state, Date.now(), this.ceiling(this.cached.state)) : undefined;
    const next = await this.update((state, now) =>
      afterRateLimited(state, { now, sentAt, goodRate, ceiling: this.ceiling(state) }),
    );
    if (next) {
      this.options.logger?.info(
        { from: round(before), to: round(next.rate), acceptedPerSecond: round(goodRate) },
        'rate limited: the rate of the key is cut for every process; it climbs back slowly',
      );
    }
  }

  private async learn(signals: RateLimitSignals): Promise<void> {
    const stated = this.statedReader.read(signals);
    const cached = this.cached?.state;
    // Most answers state what the state holds already: the cached view saves a round trip per answer.
    if (stated && (!cached || cached.phase === 'probe' || !sameStatedRate(cached.stated, stated))) {
      const next = await this.update((state, now) =>
        afterStatedLimit(state, now, stated, this.configuredCeiling, this.headroom),
      );
      const told = `${stated.by} ${round(stated.perSecond)} ${stated.windowKnown}`;
      if (next && told !== this.toldStated) {
        this.toldStated = told;
        this.options.logger?.info(
          {
            statedPerSecond: round(stated.perSecond),
            statedBy: stated.by,
            window: stated.windowKnown ? 'stated' : `${stated.windowSeconds} s, from the resets`,
            ratePerSecond: round(rateAt(next, Date.now(), this.ceiling(next))),
          },
          stated.windowKnown
            ? 'the API states its rate limit: the ceiling of the key follows it'
            : 'the API states its limit: the key runs just under the rate it implies, and probes above it while no 429 comes',
        );
      }
    }
    // Held back only for the sure part of the wait: a reset rounded up to a whole second would block the key too long.
    const sureMs = (signals.resetMs ?? 0) - (signals.resetRoundingMs ?? 0);
    if (signals.remaining === 0 && sureMs > 0) await this.gate.blockFor(sureMs);
  }
}

function promiseWithResolve(): { promise: Promise<void>; resolve: () => void; readonly done: boolean } {
  let resolve!: () => void;
  let done = false;
  const promise = new Promise<void>((r) => (resolve = r));
  return {
    promise,
    resolve: () => {
      done = true;
      resolve();
    },
    get done() {
      return done;
    },
  };
}

function round(value: number | undefined): number | undefined {
  return value === undefined ? undefined : Math.round(value * 100) / 100;
}

/** A few milliseconds, so the waiters of every process do not all wake on the same one. */
function jitter(): number {
  return Math.floor(Math.random() * 10);
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(
      () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      },
      Math.max(0, ms),
    );
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
