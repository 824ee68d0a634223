import type { Redis } from 'ioredis';
import type { RatePhase, RateState } from './adaptive-rate.js';
import type { RedisKeys } from '../../redis-keys.js';
import type { StatedBy } from './rate-headers.js';
import type { StatedRate } from './stated-rate.js';

/**
 * Where the adaptive rate of one key lives (adaptive-rate.ts): in Redis for every process of a key, in memory for one.
 * What each request does on its way out (block, slot units, spacing, accepted answers) is the key's gate: rate-gate.ts.
 */
export interface RateStateStore {
  /** The state and its version, or undefined (version 0) when none was written yet. */
  read(): Promise<{ state: RateState | undefined; version: number }>;
  /** Writes `next` if the version is still `version`; false when another process changed it first. */
  compareAndSet(version: number, next: RateState): Promise<boolean>;
}

/** The state of a key is kept a day after its last change: a later run starts from what the last one learned. */
const STATE_TTL_MS = 24 * 3_600_000;
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

export class RedisRateStateStore implements RateStateStore {
  private readonly stateKey: string;

  /** @param apiKeyHash names the API key in its keys (`keyHash`): each key has its own rate. */
  constructor(
    private readonly redis: Redis,
    keys: RedisKeys,
    apiKeyHash: string,
  ) {
    this.stateKey = keys.rateState(apiKeyHash);
  }

  async read(): Promise<{ state: RateState | undefined; version: number }> {
    const fields = await this.redis.hgetall(this.stateKey);
    const version = Number(fields.version ?? 0);
    return { state: parseState(fields), version: Number.isInteger(version) ? version : 0 };
  }

  async compareAndSet(version: number, next: RateState): Promise<boolean> {
    const fields = Object.entries(stateFields(next)).flatMap(([name, value]) => [name, String(value)]);
    const done = await this.redis.eval(
      COMPARE_AND_SET,
      1,
      this.stateKey,
      String(version),
      String(STATE_TTL_MS),
      ...fields,
    );
    return done === 1;
  }

  /**
   * The state as stored and Redis's time left on it, read in one step without writing: what `bvsync rate` and `bvsync
   * status` show. Undefined when none is stored or it cannot be read, as a budget treats both.
   */
  async inspect(): Promise<StoredRateState | undefined> {
    const replies = await this.redis.multi().hgetall(this.stateKey).pttl(this.stateKey).exec();
    const [fields, ttl] = (replies ?? []).map(([error, reply]) => {
      if (error) throw error;
      return reply;
    }) as [Record<string, string> | undefined, number | undefined];
    const state = fields ? parseState(fields) : undefined;
    if (!state) return undefined;
    // Every write sets the expiry; -1 (none) would be a state written by hand.
    return { state, expiresInMs: ttl !== undefined && ttl >= 0 ? ttl : undefined };
  }

  /**
   * Forgets the learned rate: the next turn of any budget finds no state and starts from the configured rate. True
   * when a state was stored. A budget's compare-and-set against the deleted version then fails, and it re-reads.
   */
  async remove(): Promise<boolean> {
    return (await this.redis.del(this.stateKey)) === 1;
  }
}

/** A state as Redis holds it: `expiresInMs` is undefined when the key has no expiry. */
export interface StoredRateState {
  state: RateState;
  expiresInMs: number | undefined;
}

export class MemoryRateStateStore implements RateStateStore {
  private state: RateState | undefined;
  private version = 0;

  async read(): Promise<{ state: RateState | undefined; version: number }> {
    return { state: this.state && { ...this.state }, version: this.version };
  }

  async compareAndSet(version: number, next: RateState): Promise<boolean> {
    if (version !== this.version) return false;
    this.state = { ...next };
    this.version += 1;
    return true;
  }
}

const PHASES: readonly RatePhase[] = ['probe', 'steady'];
const STATED_BY: readonly StatedBy[] = ['RateLimit-Policy', 'RateLimit', 'RateLimit-Limit', 'X-RateLimit-Limit'];

/**
 * Every field, `confirmed` and the stated rate's included when absent: HSET leaves fields it is not given as they were,
 * so a state without a stated rate would keep an old one (test/api/rate-state-store.int.test.ts).
 */
function stateFields(state: RateState): Record<string, string | number | boolean> {
  const { stated, confirmed, ...rest } = state;
  return {
    ...rest,
    confirmed: confirmed === true,
    statedPerSecond: stated?.perSecond ?? 0,
    statedBy: stated?.by ?? '',
    statedWindowKnown: stated?.windowKnown === true,
    statedWindowSeconds: stated?.windowSeconds ?? 0,
  };
}

/** The stated rate of a state's fields; undefined when none is recorded, or it cannot be read. */
function parseStated(fields: Record<string, string>): StatedRate | undefined {
  const perSecond = Number(fields.statedPerSecond ?? 0);
  const by = fields.statedBy as StatedBy;
  if (!(perSecond > 0) || !Number.isFinite(perSecond) || !STATED_BY.includes(by)) return undefined;
  const windowKnown = fields.statedWindowKnown === 'true';
  const windowSeconds = Number(fields.statedWindowSeconds ?? 0);
  return { perSecond, by, windowKnown, ...(!windowKnown && windowSeconds > 0 ? { windowSeconds } : {}) };
}

/** A state read back from Redis; undefined when absent or not readable (it is then written afresh). */
function parseState(fields: Record<string, string>): RateState | undefined {
  const rate = Number(fields.rate);
  const at = Number(fields.at);
  const limit = Number(fields.limit ?? 0);
  const cutAt = Number(fields.cutAt ?? 0);
  const phase = fields.phase as RatePhase;
  if (!(rate > 0) || !PHASES.includes(phase) || ![at, limit, cutAt].every(Number.isFinite)) return undefined;
  const stated = parseStated(fields);
  return {
    rate,
    at,
    phase,
    limit,
    cutAt,
    ...(fields.confirmed === 'true' ? { confirmed: true } : {}),
    ...(stated ? { stated } : {}),
  };
}
