import type { Redis } from 'ioredis';
import type { RatePhase, RateState } from './adaptive-rate.js';
import type { RedisKeys } from '../redis-keys.js';

/**
 * Where the adaptive rate of one key lives (see adaptive-rate.ts), and the count of answers the API accepted, from
 * which a 429 learns the rate to fall back to. In Redis for every process of a key; in memory for one.
 */
export interface RateStateStore {
  /** The state and its version, or undefined (version 0) when none was written yet. */
  read(): Promise<{ state: RateState | undefined; version: number }>;
  /** Writes `next` if the version is still `version`; false when another process changed it first. */
  compareAndSet(version: number, next: RateState): Promise<boolean>;
  /** Counts one answer the API accepted (anything but a 429). */
  countAccepted(now: number): Promise<void>;
  /** Accepted answers per second over the last second (see `acceptedRateEstimate`). */
  acceptedRate(now: number): Promise<number>;
  /**
   * Reserves the moment one request leaves: the later of `earliest` and the last reservation plus `spacingMs`, so no
   * two requests of the key leave closer than the spacing, whichever process sends them.
   */
  reserve(earliest: number, spacingMs: number): Promise<number>;
}

/** The state of a key is kept a day after its last change: a later run starts from what the last one learned. */
const STATE_TTL_MS = 24 * 3_600_000;
/** Per-second counters of accepted answers; only the last two are read. */
const COUNTER_TTL_MS = 5_000;

/**
 * Compare-and-set on the state hash: one atomic step, so two processes cutting on the same 429 episode cannot both
 * apply their cut. No WATCH: the Redis connection is shared with BullMQ, and WATCH belongs to a connection.
 */
const COMPARE_AND_SET = `
local current = redis.call('HGET', KEYS[1], 'version') or '0'
if current ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'version', tostring(tonumber(current) + 1), unpack(ARGV, 3))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`;

/** The key's next free moment (ms, as a string: Redis would cut a Lua number to an integer; 14 digits, 0.1 ms). */
const RESERVE = `
local last = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
local at = math.max(last, tonumber(ARGV[1]))
redis.call('SET', KEYS[1], tostring(at + tonumber(ARGV[2])), 'PX', ARGV[3])
return tostring(at)
`;
/** A reservation is only ever compared with the present; an old one is as good as none. */
const RESERVATION_TTL_MS = 60_000;

export class RedisRateStateStore implements RateStateStore {
  private readonly stateKey: string;
  private readonly nextKey: string;

  /** @param apiKeyHash names the API key in its keys (`keyHash`): each key has its own rate. */
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly apiKeyHash: string,
  ) {
    this.stateKey = keys.rateState(apiKeyHash);
    this.nextKey = keys.rateNext(apiKeyHash);
  }

  async reserve(earliest: number, spacingMs: number): Promise<number> {
    const at = await this.redis.eval(RESERVE, 1, this.nextKey, String(earliest), String(spacingMs), String(RESERVATION_TTL_MS));
    return Number(at);
  }

  async read(): Promise<{ state: RateState | undefined; version: number }> {
    const fields = await this.redis.hgetall(this.stateKey);
    const version = Number(fields.version ?? 0);
    return { state: parseState(fields), version: Number.isInteger(version) ? version : 0 };
  }

  async compareAndSet(version: number, next: RateState): Promise<boolean> {
    // Every field, `confirmed` included when false: HSET leaves fields it is not given as they were.
    const fields = Object.entries({ ...next, confirmed: next.confirmed === true }).flatMap(([name, value]) => [name, String(value)]);
    const done = await this.redis.eval(COMPARE_AND_SET, 1, this.stateKey, String(version), String(STATE_TTL_MS), ...fields);
    return done === 1;
  }

  async countAccepted(now: number): Promise<void> {
    const key = this.keys.rateAccepted(this.apiKeyHash, Math.floor(now / 1000));
    await this.redis.multi().incr(key).pexpire(key, COUNTER_TTL_MS).exec();
  }

  async acceptedRate(now: number): Promise<number> {
    const second = Math.floor(now / 1000);
    const [current, previous] = await this.redis.mget(this.keys.rateAccepted(this.apiKeyHash, second), this.keys.rateAccepted(this.apiKeyHash, second - 1));
    return acceptedRateEstimate(Number(current ?? 0), Number(previous ?? 0), now);
  }
}

export class MemoryRateStateStore implements RateStateStore {
  private state: RateState | undefined;
  private version = 0;
  private readonly accepted = new Map<number, number>();
  private nextFree = 0;

  async reserve(earliest: number, spacingMs: number): Promise<number> {
    const at = Math.max(this.nextFree, earliest);
    this.nextFree = at + spacingMs;
    return at;
  }

  async read(): Promise<{ state: RateState | undefined; version: number }> {
    return { state: this.state && { ...this.state }, version: this.version };
  }

  async compareAndSet(version: number, next: RateState): Promise<boolean> {
    if (version !== this.version) return false;
    this.state = { ...next };
    this.version += 1;
    return true;
  }

  async countAccepted(now: number): Promise<void> {
    const second = Math.floor(now / 1000);
    this.accepted.set(second, (this.accepted.get(second) ?? 0) + 1);
    for (const old of this.accepted.keys()) if (old < second - 1) this.accepted.delete(old);
  }

  async acceptedRate(now: number): Promise<number> {
    const second = Math.floor(now / 1000);
    return acceptedRateEstimate(this.accepted.get(second) ?? 0, this.accepted.get(second - 1) ?? 0, now);
  }
}

/**
 * Answers the API accepted per second, from the counters of the current and the previous whole second: those of the
 * last 1,000 ms (`slidingRate`), but never more than one whole second held. A 429 comes late in one of the API's
 * windows, when it is full; the last 1,000 ms then hold that whole window plus the end of the one before, so the
 * sliding count alone runs above the limit (20.3-21.6/s measured against a 20/s limit, bench/rate-limit.ts), and a
 * plateau at 95 % of it sat at the limit itself, with 429s every few seconds.
 */
export function acceptedRateEstimate(current: number, previous: number, now: number): number {
  return Math.min(slidingRate(current, previous, now), Math.max(current, previous));
}

/** Answers of the last 1,000 ms, estimated from two whole-second counters. */
export function slidingRate(current: number, previous: number, now: number): number {
  const intoSecond = (now % 1000) / 1000;
  return current + previous * (1 - intoSecond);
}

const PHASES: readonly RatePhase[] = ['probe', 'steady'];

/** A state read back from Redis; undefined when absent or not readable (it is then written afresh). */
function parseState(fields: Record<string, string>): RateState | undefined {
  const rate = Number(fields.rate);
  const at = Number(fields.at);
  const limit = Number(fields.limit ?? 0);
  const cutAt = Number(fields.cutAt ?? 0);
  const phase = fields.phase as RatePhase;
  if (!(rate > 0) || !Number.isFinite(at) || !PHASES.includes(phase) || !Number.isFinite(limit) || !Number.isFinite(cutAt)) return undefined;
  return { rate, at, phase, limit, cutAt, ...(fields.confirmed === 'true' ? { confirmed: true } : {}) };
}
