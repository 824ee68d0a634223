import type { Redis } from 'ioredis';

/**
 * Redis round trip (ms) per step: each full step adds `sync.fetchConcurrency` jobs again, as a fetch job waits on
 * round trips beside its API call, so a far Redis needs more in flight (test/engine/fetch-concurrency.int.test.ts).
 */
export const FAR_REDIS_STEP_MS = 4;

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

/**
 * Fetch slots of one BullMQ worker: a worker starts no job until its slots are full or the queue empty, one round trip
 * a job, so slots are split over workers that fill side by side, each on its own connection.
 */
export const FETCH_SLOTS_PER_WORKER = 8;

/**
 * The concurrency of each fetch worker of a process, together `concurrency`: one worker for a Redis nearby, where a
 * round trip costs nothing, else one per FETCH_SLOTS_PER_WORKER slots (test/engine/fetch-concurrency.int.test.ts).
 */
export function fetchWorkerSlots(concurrency: number, roundTripMs: number): number[] {
  if (roundTripMs < FAR_REDIS_STEP_MS || concurrency <= FETCH_SLOTS_PER_WORKER) return [concurrency];
  const workers = Math.ceil(concurrency / FETCH_SLOTS_PER_WORKER);
  return Array.from(
    { length: workers },
    (_, index) => Math.floor(concurrency / workers) + (index < concurrency % workers ? 1 : 0),
  );
}
