import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { RunStore } from '../../src/engine/run/run-store.js';
import { removeWaitingJobs, waitingCommits } from '../../src/engine/writer/waiting-commits.js';
import { redisKeys } from '../../src/redis-keys.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';

// A commit job's companions are listed with whether their slices are done in one command, and a companion's job is
// removed only once its slice's outcome is recorded (waiting-commits.ts), so the removal may share a round trip with it.
const prefix = uniquePrefix('waiting-commits');
let redis: Redis;
let queue: Queue;
let runs: RunStore;

beforeAll(async () => {
  redis = testRedis();
  queue = new Queue('load', { connection: redis, prefix });
  runs = new RunStore(redis, prefix);
  await runs.create({
    runId: 'run-1',
    kind: 'backfill',
    brands: [1],
    streams: ['conversations'],
    today: '2026-11-20',
    from: '2026-11-18',
    to: '2026-11-20',
    status: 'running',
    startedAt: new Date().toISOString(),
    finishedAt: null,
    phase: 1,
    published: null,
    error: null,
  });
});

afterAll(async () => {
  await queue.close();
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

function commit(day: string) {
  return { runId: 'run-1', sliceId: `1|conversations|${day}`, day };
}

async function recordDone(day: string): Promise<void> {
  const outcome = { brandId: 1, stream: 'conversations', status: 'complete' as const, rows: 1, rejects: 0 };
  await runs.recordOutcome('run-1', {
    ...outcome,
    sliceId: commit(day).sliceId,
    requests: 1,
    retries: 0,
    rateLimited: 0,
  });
}

describe('waiting commits', () => {
  it('are listed oldest first with whether each is done, in one command, other jobs left out', async () => {
    await queue.add('commit', commit('2026-11-18'), { jobId: 'c-18' });
    await queue.add('finalize', { runId: 'run-1' }, { jobId: 'f-1' });
    await queue.add('commit', commit('2026-11-19'), { jobId: 'c-19' });
    await queue.add('commit', commit('2026-11-20'), { jobId: 'c-20' });
    await recordDone('2026-11-19');
    const sent = vi.spyOn(redis, 'sendCommand');
    const listed = await waitingCommits(redis, prefix, queue, 10);
    expect(sent.mock.calls.length).toBe(1);
    sent.mockRestore();
    expect(listed.map(({ job, done }) => [job.id, job.name, job.data.day, done])).toEqual([
      ['c-18', 'commit', '2026-11-18', false],
      ['c-19', 'commit', '2026-11-19', true],
      ['c-20', 'commit', '2026-11-20', false],
    ]);
    // Only the oldest `count` waiting jobs are looked at.
    expect((await waitingCommits(redis, prefix, queue, 2)).map(({ job }) => job.id)).toEqual(['c-18']);
  });

  it('are removed only once their slices are done', async () => {
    const listed = await waitingCommits(redis, prefix, queue, 10);
    const guards = listed.map(({ job }) => ({
      doneKey: redisKeys(prefix).run('run-1', 'done'),
      sliceId: job.data.sliceId as string,
    }));
    await removeWaitingJobs(
      redis,
      queue,
      listed.map(({ job }) => job),
      guards,
    );
    expect((await queue.getJobs(['waiting'], 0, -1, true)).map((job) => job.id)).toEqual(['c-18', 'f-1', 'c-20']);
    expect(await queue.getJob('c-19')).toBeUndefined();
  });
});
