import { DAY_MS } from '../../days.js';
import type { Redis } from 'ioredis';
import { redisKeys, type RedisKeys } from '../../redis-keys.js';
import type { SyncConfig } from '../../configuration.js';

/**
 * A call unanswered since this long after the last sighting starts another outage; longer than any fetch queue pause.
 * Counted from when the call stopped being answered, not its end, since a hanging API makes calls last minutes.
 */
export const SAME_OUTAGE_MS = 3 * 60_000;

/** Long enough to outlive any run that gave up: a run's records in Redis are kept longer, and an answer clears it sooner. */
const MEMORY_MS = DAY_MS;

/**
 * How long a run waits the API out (`sync.outageToleranceMinutes`), undefined when it does not (0). Also how long one
 * call retries an API that answers nothing: its own attempts must not outlast what the run would wait.
 */
export function outageToleranceMs(sync: Pick<SyncConfig, 'outageToleranceMinutes'>): number | undefined {
  return sync.outageToleranceMinutes > 0 ? sync.outageToleranceMinutes * 60_000 : undefined;
}

/**
 * Since when the whole process has had no answer, given a call unanswered since `callSince` by its thread's measure.
 * Undefined when another call was answered lately: then the API fails this request, not all of them.
 */
export function processUnansweredSince(
  callSince: number,
  lastAnsweredAt: number,
  toleranceMs: number,
  now: number,
): number | undefined {
  if (lastAnsweredAt < callSince) return callSince;
  return now - lastAnsweredAt >= toleranceMs ? lastAnsweredAt + 1 : undefined;
}

/** What a run knows of the API being away. */
export interface Outage {
  /** Since when the first sighting's call was unanswered (its start, or just after its last answer): the API answered none of the run's calls since. */
  since: number;
  /** The last sighting. */
  seenAt: number;
  /** Slices that found it away: one slice alone may be a request the API fails, not the API. */
  slices: number;
  gaveUpAt?: number | undefined;
  /** `rate_limited` when the last sighting was a key answered nothing but 429s; else the API answered nothing but 5xx, or nothing. */
  cause?: 'rate_limited' | undefined;
}

// KEYS[1] the memo; ARGV: now, the call's start, the slice's field, SAME_OUTAGE_MS, MEMORY_MS, the cause ('' or
// rate_limited). One script, so a slice read back (`over`) cannot fall between reading and writing the memo.
const SIGHTED = `
local seen = tonumber(redis.call('HGET', KEYS[1], 'seenAt'))
if seen == nil or tonumber(ARGV[2]) - seen >= tonumber(ARGV[4]) then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'since', ARGV[2])
end
redis.call('HSET', KEYS[1], 'seenAt', ARGV[1], ARGV[3], '1')
-- What the run gave up on stays what its failed slices say, whatever a later sighting met.
if redis.call('HEXISTS', KEYS[1], 'gaveUpAt') == 0 then redis.call('HSET', KEYS[1], 'cause', ARGV[6]) end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return redis.call('HGETALL', KEYS[1])`;

// Only an outage still on record is given up on: one a slice read back ended meanwhile is not.
const GIVE_UP = `
if redis.call('EXISTS', KEYS[1]) == 0 then return {} end
redis.call('HSETNX', KEYS[1], 'gaveUpAt', ARGV[1])
return redis.call('HGETALL', KEYS[1])`;

/**
 * A run's shared memory of an API answering only 5xx or nothing, waited out once a run; given up, slices fail unsent.
 * A slice read back ends it (test/engine/outage-memo.int.test.ts, test/engine/outage-give-up.int.test.ts).
 */
export class OutageMemo {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = redisKeys(prefix);
  }

  /**
   * Notes that a slice's call found the API away at `now`, unanswered since `unansweredSince` (with `rate_limited`: the key
   * answered nothing but 429s since): the outage it belongs to.
   */
  async sighted(
    runId: string,
    sliceId: string,
    unansweredSince: number,
    now: number,
    cause?: 'rate_limited',
  ): Promise<Outage> {
    const fields = await this.redis.eval(
      SIGHTED,
      1,
      this.key(runId),
      String(now),
      String(unansweredSince),
      `slice:${sliceId}`,
      String(SAME_OUTAGE_MS),
      String(MEMORY_MS),
      cause ?? '',
    );
    return outageOf(fields)!;
  }

  /** The run stops waiting: its slices that meet the API away, or start after this, fail. Undefined when it ended meanwhile. */
  async giveUp(runId: string, now: number): Promise<Outage | undefined> {
    return outageOf(await this.redis.eval(GIVE_UP, 1, this.key(runId), String(now)));
  }

  /** The outage the run gave up on, if it did and no slice was read back since. */
  async gaveUp(runId: string): Promise<Outage | undefined> {
    const outage = outageOf(await this.redis.hgetall(this.key(runId)));
    return outage?.gaveUpAt === undefined ? undefined : outage;
  }

  /** A slice of the run was read back: whatever outage there was is over. */
  async over(runId: string): Promise<void> {
    await this.redis.del(this.key(runId));
  }

  private key(runId: string): string {
    return this.keys.run(runId, 'outage');
  }
}

/** The memo from HGETALL's answer: an object (ioredis's hgetall) or a flat list of names and values (a script's). */
function outageOf(reply: unknown): Outage | undefined {
  const fields: Record<string, string> = {};
  if (Array.isArray(reply)) {
    for (let i = 0; i + 1 < reply.length; i += 2) fields[String(reply[i])] = String(reply[i + 1]);
  } else if (reply && typeof reply === 'object') {
    Object.assign(fields, reply);
  }
  const since = Number(fields.since);
  const seenAt = Number(fields.seenAt);
  if (!Number.isFinite(since) || !Number.isFinite(seenAt)) return undefined;
  const slices = Object.keys(fields).filter((name) => name.startsWith('slice:')).length;
  return {
    since,
    seenAt,
    slices,
    gaveUpAt: fields.gaveUpAt === undefined ? undefined : Number(fields.gaveUpAt),
    cause: fields.cause === 'rate_limited' ? 'rate_limited' : undefined,
  };
}
