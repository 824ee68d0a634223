import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDelayProxy, type DelayProxy } from '../../bench/delay-proxy.js';
import { FAR_REDIS_STEP_MS } from '../../src/engine/fetch/fetch-concurrency.js';
import { engineFixture, runInProcess, tableDifferences, type EngineFixture } from '../support/engine.js';
import { TEST_REDIS_URL } from '../support/redis.js';

/**
 * With Redis far away the fetch slots are split over several BullMQ workers (fetch-concurrency.ts, fetchWorkerSlots):
 * the same backfill through a proxy that delays each round trip loads exactly the tables one on loopback loads.
 */

const TODAY = '2026-11-20';
const SIM = { brands: 1, days: 2, scale: 5, today: TODAY };
let near: EngineFixture;
let far: EngineFixture;
let proxy: DelayProxy;

beforeAll(async () => {
  near = await engineFixture('far-redis-near', { sim: SIM });
  far = await engineFixture('far-redis-far', { sim: SIM });
  const url = new URL(TEST_REDIS_URL);
  // Two steps of round trip: the configured concurrency is tripled and taken by several workers.
  proxy = await startDelayProxy({ host: url.hostname, port: Number(url.port || 6379) }, FAR_REDIS_STEP_MS * 2 + 2);
  far.redisUrl = proxy.url;
});
afterAll(async () => {
  await proxy?.close();
  await near?.cleanup();
  await far?.cleanup();
});

describe('a backfill with Redis far away', () => {
  it('loads the same tables as one with Redis nearby', async () => {
    const options = { kind: 'backfill' as const, today: TODAY, from: '2026-11-19', to: TODAY };
    const nearRun = await runInProcess(near, options);
    const farRun = await runInProcess(far, options);
    expect(nearRun.meta.status).toBe('complete');
    expect(farRun.meta.status).toBe('complete');
    expect(farRun.planned).toBe(nearRun.planned);
    expect(await tableDifferences(near.config.db, far.config.db)).toEqual([]);
  });
});
