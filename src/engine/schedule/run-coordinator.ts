import { DAY_MS } from '../../days.js';
import type { Redis } from 'ioredis';
import type { RunCoordinator } from 'node-cron';
import type { RedisKeys } from '../../redis-keys.js';

/**
 * node-cron fires in every scheduler process; this coordinator lets exactly one of them run each tick. The key
 * node-cron passes names the task and the tick's slot, so `SET NX` elects one process per slot. The key is kept
 * for a day (not deleted on completion), so a scheduler restarted inside the same tick cannot run it again.
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
