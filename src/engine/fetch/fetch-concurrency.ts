import type { Redis } from 'ioredis';

/**
 * Round trip to Redis (ms) per step of concurrency: each full step adds `sync.fetchConcurrency` jobs again.
 * A fetch job waits on several round trips beside its API call, so a far Redis needs more jobs in flight.
 * Proved by test/engine/fetch-concurrency.int.test.ts.
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
 * Fetch slots of one BullMQ worker. A worker takes its jobs one round trip each and starts none until its slots are
 * full or the queue is empty, so 64 slots in one worker start their first job 64 round trips after a phase is planned.
 * Workers of this many slots each fill side by side, on connections of their own.
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
