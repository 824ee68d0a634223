/**
 * Scenario waiting-removal: the removal of a batched commit's companion jobs (the oldest waiting, at the wait list's
 * right end), 50 at a time in three rounds, behind a backlog of 100 and 12,500 newer waiting jobs: by BullMQ's
 * `job.remove()` (LREM from the left end) and by `removeWaitingJobs` (from the right end). Target: the removal does
 * not grow with the backlog (docs/performance.md, "Redis latency"). Figures are Redis's own time per call (INFO
 * commandstats) on a private redis-server, so neither the round trip nor other work on the machine's Redis counts.
 */
import { Queue, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { startPrivateRedis } from '../src/engine/redis/redis.js';
import { removeWaitingJobs } from '../src/engine/writer/waiting-commits.js';
import type { BenchResult } from './run.js';

const BACKLOGS = [100, 12_500];
const REMOVED = 50;
const ROUNDS = 3;

/** Redis's microseconds per call of `command` since the last CONFIG RESETSTAT. */
async function usecPerCall(redis: Redis, command: string): Promise<number> {
  const stats = await redis.info('commandstats');
  const found = new RegExp(`cmdstat_${command}:calls=\\d+,usec=\\d+,usec_per_call=([0-9.]+)`).exec(stats);
  if (!found) throw new Error(`no ${command} in INFO commandstats`);
  return Number(found[1]);
}

async function perCallUs(
  url: string,
  backlog: number,
  command: string,
  remove: (redis: Redis, queue: Queue, job: Job) => Promise<void>,
): Promise<number> {
  const redis = new Redis(url, { maxRetriesPerRequest: null });
  const queue = new Queue('load', { connection: redis, prefix: 'bench' });
  try {
    const total = backlog + ROUNDS * REMOVED;
    for (let added = 0; added < total; added += 1_000) {
      const count = Math.min(1_000, total - added);
      await queue.addBulk(
        Array.from({ length: count }, (_, index) => ({
          name: 'commit',
          data: {},
          opts: { jobId: `job-${added + index}` },
        })),
      );
    }
    // The fastest of a few rounds: a Redis that the busy machine descheduled mid-script only adds.
    let fastest = Number.POSITIVE_INFINITY;
    for (let round = 0; round < ROUNDS; round++) {
      const oldest = await queue.getJobs(['waiting'], 0, REMOVED - 1, true);
      await redis.config('RESETSTAT');
      for (const job of oldest) await remove(redis, queue, job);
      fastest = Math.min(fastest, await usecPerCall(redis, command));
    }
    if ((await queue.getWaitingCount()) !== backlog) throw new Error('the jobs were not removed');
    return fastest;
  } finally {
    await queue.obliterate({ force: true });
    await queue.close();
    redis.disconnect();
  }
}

export async function run(): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const redis = await startPrivateRedis();
  let first: number | undefined;
  try {
    for (const backlog of BACKLOGS) {
      const bullmq = await perCallUs(redis.url, backlog, 'evalsha', (_redis, _queue, job) => job.remove());
      const fromRight = await perCallUs(redis.url, backlog, 'eval', (client, queue, job) =>
        removeWaitingJobs(client, queue, [job]),
      );
      results.push(
        { scenario: 'waiting-removal', metric: `BullMQ job.remove(), ${backlog} waiting`, value: bullmq, unit: 'µs' },
        {
          scenario: 'waiting-removal',
          metric: `removeWaitingJobs, ${backlog} waiting`,
          value: fromRight,
          unit: 'µs',
          reference: bullmq,
          target: '< BullMQ job.remove()',
          met: fromRight < bullmq,
        },
      );
      if (first === undefined) first = fromRight;
      else
        results.push({
          scenario: 'waiting-removal',
          metric: `removeWaitingJobs, ${backlog} vs ${BACKLOGS[0]} waiting`,
          value: fromRight,
          unit: 'µs',
          reference: first,
          target: '<= 2 x',
          met: fromRight <= 2 * first,
        });
    }
  } finally {
    await redis.stop();
  }
  return results;
}
