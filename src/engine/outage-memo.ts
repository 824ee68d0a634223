import type { Redis } from 'ioredis';
import { redisKeys, type RedisKeys } from '../redis-keys.js';

/**
 * Sightings this far apart are two outages, not one: longer than the longest pause of the fetch queue (a minute) and
 * a call's own retries (`api.maxAttempts` waits of up to `api.retryMaxMs`) together.
 */
export const SAME_OUTAGE_MS = 3 * 60_000;

/** Long enough to outlive any run that gave up: a run's records in Redis are kept longer, and a success clears it sooner. */
const GAVE_UP_MEMORY_MS = 24 * 60 * 60 * 1000;

/** What a run knows of the API being away: since when, last seen, and when the run stopped waiting for it. */
export interface Outage {
  since: number;
  seenAt: number;
  gaveUpAt?: number | undefined;
}

/**
 * A run's memory of an API that answers nothing but 5xx, or nothing (a deployment, a gateway restart), shared by every
 * process of the run through Redis (`<prefix>:run:<id>:outage`): since when its slices found it away, so the run waits
 * one outage out for `sync.outageToleranceMinutes` whichever slices meet it, and once the run gives up, its other
 * slices fail without a request. A slice read whole ends it: the API is back. Per run, not per key: the next run asks
 * again.
 */
export class OutageMemo {
  private readonly keys: RedisKeys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = redisKeys(prefix);
  }

  /** Notes that a slice of the run found the API away at `now`: the outage this sighting belongs to. */
  async sighted(runId: string, now: number): Promise<Outage> {
    const before = await this.read(runId);
    const outage: Outage = before && now - before.seenAt < SAME_OUTAGE_MS ? { ...before, seenAt: now } : { since: now, seenAt: now };
    await this.write(runId, outage);
    return outage;
  }

  /** The run stops waiting: its slices that meet the API away, or start after this, fail. */
  async giveUp(runId: string, outage: Outage, now: number): Promise<Outage> {
    const gaveUp = { ...outage, gaveUpAt: outage.gaveUpAt ?? now };
    await this.write(runId, gaveUp);
    return gaveUp;
  }

  /** The outage the run gave up on, if it did and no slice was read since. */
  async gaveUp(runId: string): Promise<Outage | undefined> {
    const outage = await this.read(runId);
    return outage?.gaveUpAt === undefined ? undefined : outage;
  }

  /** A slice of the run was read whole: whatever outage there was is over. */
  async over(runId: string): Promise<void> {
    await this.redis.del(this.key(runId));
  }

  private async read(runId: string): Promise<Outage | undefined> {
    const fields = await this.redis.hgetall(this.key(runId));
    const since = Number(fields.since);
    const seenAt = Number(fields.seenAt);
    if (!Number.isFinite(since) || !Number.isFinite(seenAt)) return undefined;
    const gaveUpAt = fields.gaveUpAt === undefined ? undefined : Number(fields.gaveUpAt);
    return { since, seenAt, gaveUpAt };
  }

  private async write(runId: string, outage: Outage): Promise<void> {
    const key = this.key(runId);
    const fields: Record<string, string> = { since: String(outage.since), seenAt: String(outage.seenAt) };
    if (outage.gaveUpAt !== undefined) fields.gaveUpAt = String(outage.gaveUpAt);
    await this.redis.multi().hset(key, fields).pexpire(key, GAVE_UP_MEMORY_MS).exec();
  }

  private key(runId: string): string {
    return this.keys.run(runId, 'outage');
  }
}
