import type { Redis } from 'ioredis';

/**
 * Measured round trip to Redis (ms) per step of concurrency: each full `FAR_REDIS_STEP_MS` adds `sync.fetchConcurrency`
 * jobs again, so a Redis nearby that a busy event loop makes look a few ms away changes nothing. A fetch job waits some six round trips to Redis beside its API call (BullMQ's take and finish, the
 * refusal and outage looks, the rate turn, the chunk, the commit job), so with Redis far away the API sits idle
 * unless more jobs are in flight (docs/performance.md, "Redis latency").
 */
export const FAR_REDIS_STEP_MS = 10;

/** Round trips timed to learn how far Redis is; the fastest counts, since a busy event loop only adds. */
const ROUND_TRIPS_TIMED = 3;

/**
 * Fetch jobs one process runs at once: `configured` on a Redis nearby, more the farther Redis is, never above `most`
 * (`sync.maxFetchConcurrency`) nor below `configured`. The rate budget still bounds what reaches the API.
 */
export function fetchConcurrencyFor(configured: number, roundTripMs: number, most: number): number {
  const scaled = configured * (1 + Math.floor(Math.max(0, roundTripMs) / FAR_REDIS_STEP_MS));
  return Math.max(configured, Math.min(most, scaled));
}

/** The shortest of a few PINGs to Redis, in ms. */
export async function redisRoundTripMs(redis: Pick<Redis, 'ping'>): Promise<number> {
  let fastest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < ROUND_TRIPS_TIMED; i++) {
    const started = performance.now();
    await redis.ping();
    fastest = Math.min(fastest, performance.now() - started);
  }
  return fastest;
}
