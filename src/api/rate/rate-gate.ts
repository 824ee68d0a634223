import type { Redis, Result } from 'ioredis';
import type { RedisKeys } from '../../redis-keys.js';

/**
 * The gate every request of one API key passes on its way out: the key's block (a 429's `Retry-After`), the units of
 * the current slot, and the key's next free moment. One turn is one Redis round trip (a Lua script).
 */
export interface RateGate {
  /** One request's turn; counts `accepted` answers into their second's counter on the way. */
  turn(turn: GateTurn): Promise<GateAnswer>;
  /** Milliseconds the key stays blocked; 0 when it is not. */
  blockedMs(): Promise<number>;
  /** Blocks the key for `ms`; a longer block already in place is kept. */
  blockFor(ms: number): Promise<void>;
  /** Counts answers the API accepted (not a 429, a 5xx or a 408) without a turn: a count left when its second is over. */
  countAccepted(accepted: AcceptedCount): Promise<void>;
  /** Accepted answers per second over the last second (see `acceptedRateEstimate`). */
  acceptedRate(now: number): Promise<number>;
}

export interface GateTurn {
  /** ms since the epoch, as the caller read it. */
  now: number;
  /** `floor(now / slotMs)`. */
  slot: number;
  /** Units the slot allows at the rate in force (`slotAllowance`). */
  allowance: number;
  /** Units per slot at the rate in force (a fraction at low rates): where in its slot a unit is due. */
  perSlot: number;
  slotMs: number;
  /** The least time between two requests of the key: 1,000 / the rate in force. */
  spacingMs: number;
  /** Answers accepted since the last turn, and the second they were counted in. */
  accepted?: AcceptedCount | undefined;
}

export interface AcceptedCount {
  second: number;
  count: number;
}

export type GateAnswer =
  /** The key is blocked for `ms` more; no unit was taken. */
  | { kind: 'blocked'; ms: number }
  /** The slot's units are all taken. */
  | { kind: 'slot-full' }
  /** A unit is taken: the request leaves at `at` (ms since the epoch), its reserved moment. */
  | { kind: 'leave'; at: number };

/** When (in slots since the epoch) unit `unit` (1-based) of slot `slot` leaves: the units of every slot, evenly spaced. */
export function unitTime(slot: number, perSlot: number, unit: number): number {
  return (Math.floor(perSlot * slot) + unit - 1) / perSlot;
}

/** A slot's counter lives a slot and this much more, so a late turn still finds it (slots are never reused). */
const SLOT_COUNTER_SPARE_MS = 1_000;
/** A reservation is only ever compared with the present; an old one is as good as none. */
const RESERVATION_TTL_MS = 60_000;
/** Per-second counters of accepted answers; only the last two are read. */
const ACCEPTED_COUNTER_TTL_MS = 5_000;
/** The value a block holds; rate-limiter-flexible's blocks of older versions read as blocked too during an upgrade. */
const BLOCK_VALUE = '2';

/**
 * KEYS: block, slot counter, next free moment, accepted counter. ARGV: allowance, slot, perSlot, slotMs, now,
 * spacingMs, accepted. `unitTime` is spelled again in Lua; the moment returns as a string, as Redis cuts Lua numbers.
 */
const TURN = `
local accepted = tonumber(ARGV[7])
if accepted > 0 then
  redis.call('INCRBY', KEYS[4], accepted)
  redis.call('PEXPIRE', KEYS[4], ${ACCEPTED_COUNTER_TTL_MS})
end
local blocked = redis.call('PTTL', KEYS[1])
if blocked > 0 then return {'blocked', blocked} end
local unit = redis.call('INCR', KEYS[2])
if unit == 1 then redis.call('PEXPIRE', KEYS[2], math.ceil(tonumber(ARGV[4])) + ${SLOT_COUNTER_SPARE_MS}) end
if unit > tonumber(ARGV[1]) then return {'slot-full', unit} end
local perSlot = tonumber(ARGV[3])
local due = (math.floor(perSlot * tonumber(ARGV[2])) + unit - 1) / perSlot * tonumber(ARGV[4])
local last = tonumber(redis.call('GET', KEYS[3]) or '0') or 0
local at = math.max(last, due, tonumber(ARGV[5]))
redis.call('SET', KEYS[3], string.format('%.3f', at + tonumber(ARGV[6])), 'PX', ${RESERVATION_TTL_MS})
return {'leave', string.format('%.3f', at)}
`;

/** Sets the block unless a longer one is in place. KEYS: the block. ARGV: ms. */
const BLOCK = `
if redis.call('PTTL', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], '${BLOCK_VALUE}', 'PX', ARGV[1])
return 1
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    bvsyncRateTurn(
      block: string,
      counter: string,
      next: string,
      accepted: string,
      ...args: string[]
    ): Result<[string, string | number], Context>;
    bvsyncRateBlock(block: string, ms: string): Result<number, Context>;
  }
}

/** The gate of a key for every process, in Redis (keys named in src/redis-keys.ts; the API key only as its hash). */
export class RedisRateGate implements RateGate {
  private readonly blockKey: string;
  private readonly nextKey: string;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly apiKeyHash: string,
  ) {
    this.blockKey = keys.rateBlock(apiKeyHash);
    this.nextKey = keys.rateNext(apiKeyHash);
    // EVALSHA with the script's text as the fallback: the script crosses the wire once per connection, not per turn.
    if (!redis.bvsyncRateTurn) redis.defineCommand('bvsyncRateTurn', { numberOfKeys: 4, lua: TURN });
    if (!redis.bvsyncRateBlock) redis.defineCommand('bvsyncRateBlock', { numberOfKeys: 1, lua: BLOCK });
  }

  async turn(turn: GateTurn): Promise<GateAnswer> {
    const accepted = turn.accepted ?? { second: Math.floor(turn.now / 1000), count: 0 };
    const [kind, value] = await this.redis.bvsyncRateTurn(
      this.blockKey,
      this.keys.rateUnit(this.apiKeyHash, turn.slot),
      this.nextKey,
      this.keys.rateAccepted(this.apiKeyHash, accepted.second),
      String(turn.allowance),
      String(turn.slot),
      String(turn.perSlot),
      String(turn.slotMs),
      String(turn.now),
      String(turn.spacingMs),
      String(accepted.count),
    );
    if (kind === 'blocked') return { kind, ms: Number(value) };
    if (kind === 'slot-full') return { kind };
    return { kind: 'leave', at: Number(value) };
  }

  async blockedMs(): Promise<number> {
    return Math.max(0, await this.redis.pttl(this.blockKey));
  }

  async blockFor(ms: number): Promise<void> {
    if (ms > 0) await this.redis.bvsyncRateBlock(this.blockKey, String(Math.ceil(ms)));
  }

  async countAccepted({ second, count }: AcceptedCount): Promise<void> {
    const key = this.keys.rateAccepted(this.apiKeyHash, second);
    await this.redis.multi().incrby(key, count).pexpire(key, ACCEPTED_COUNTER_TTL_MS).exec();
  }

  async acceptedRate(now: number): Promise<number> {
    const second = Math.floor(now / 1000);
    const [current, previous] = await this.redis.mget(
      this.keys.rateAccepted(this.apiKeyHash, second),
      this.keys.rateAccepted(this.apiKeyHash, second - 1),
    );
    return acceptedRateEstimate(Number(current ?? 0), Number(previous ?? 0), now);
  }
}

/** The same gate for one process (tests, a one-off command without Redis). */
export class MemoryRateGate implements RateGate {
  private blockedUntil = 0;
  private slot = Number.NaN;
  private unitsTaken = 0;
  private nextFree = 0;
  private readonly accepted = new Map<number, number>();

  async turn(turn: GateTurn): Promise<GateAnswer> {
    if (turn.accepted && turn.accepted.count > 0) await this.countAccepted(turn.accepted);
    const blockedMs = this.blockedUntil - turn.now;
    if (blockedMs > 0) return { kind: 'blocked', ms: blockedMs };
    // A turn that read the clock before another one of a later slot got here: its slot is over, and counting it afresh
    // would give the slot being counted its units again when that one's next turn comes.
    if (turn.slot < this.slot) return { kind: 'slot-full' };
    if (turn.slot !== this.slot) [this.slot, this.unitsTaken] = [turn.slot, 0];
    const unit = ++this.unitsTaken;
    if (unit > turn.allowance) return { kind: 'slot-full' };
    const due = unitTime(turn.slot, turn.perSlot, unit) * turn.slotMs;
    const at = Math.max(this.nextFree, due, turn.now);
    this.nextFree = at + turn.spacingMs;
    return { kind: 'leave', at };
  }

  async blockedMs(): Promise<number> {
    return Math.max(0, this.blockedUntil - Date.now());
  }

  async blockFor(ms: number): Promise<void> {
    this.blockedUntil = Math.max(this.blockedUntil, Date.now() + ms);
  }

  async countAccepted({ second, count }: AcceptedCount): Promise<void> {
    this.accepted.set(second, (this.accepted.get(second) ?? 0) + count);
    for (const old of this.accepted.keys()) if (old < second - 1) this.accepted.delete(old);
  }

  async acceptedRate(now: number): Promise<number> {
    const second = Math.floor(now / 1000);
    return acceptedRateEstimate(this.accepted.get(second) ?? 0, this.accepted.get(second - 1) ?? 0, now);
  }
}

/**
 * Answers the API accepted per second, over the last 1,000 ms but never more than one whole second held: a 429 comes
 * when an API window is full, so the sliding count alone runs above the limit (test/api/adaptive-rate.test.ts).
 */
export function acceptedRateEstimate(current: number, previous: number, now: number): number {
  return Math.min(slidingRate(current, previous, now), Math.max(current, previous));
}

/** Answers of the last 1,000 ms, estimated from two whole-second counters. */
export function slidingRate(current: number, previous: number, now: number): number {
  const intoSecond = (now % 1000) / 1000;
  return current + previous * (1 - intoSecond);
}
