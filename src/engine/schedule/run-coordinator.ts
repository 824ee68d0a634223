import { DAY_MS } from '../../days.js';
import type { Redis } from 'ioredis';
import type { RunCoordinator } from 'node-cron';
import type { RedisKeys } from '../../redis-keys.js';

/**
 * node-cron fires in every scheduler process; `SET NX` on the task and slot's key lets exactly one run each tick.
 * The key is kept a day, not deleted on completion, so a scheduler restarted inside the tick cannot run it again.
 */
export class RedisRunCoordinator implements RunCoordinator {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async shouldRun(key: string, ttlMs: number): Promise<boolean> {
    const taken = await this.redis.set(
      this.keys.cronSlot(key),
      String(process.pid),
      'PX',
      Math.max(ttlMs, DAY_MS),
      'NX',
    );
    return taken === 'OK';
  }
}
