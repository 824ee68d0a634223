import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { WaitingError, Worker, type Job } from 'bullmq';
import {
  KeyAnswers,
  RateLimitedError,
  StoppedWaitingError,
  TransientError,
  type ApiClient,
} from '../../src/api/index.js';
import { fetchProcessor, type FetchProcessorDeps } from '../../src/engine/fetch/fetch-processor.js';
import { reviveError, serializeError } from '../../src/engine/fetch/fetch-thread-messages.js';
import type { FetchJobData } from '../../src/engine/jobs/job-data.js';
import { AccessMemo } from '../../src/engine/fetch/access-memo.js';
import { OutageMemo, outageToleranceMs } from '../../src/engine/fetch/outage-memo.js';
import { FETCH_QUEUE, openQueues, type Queues } from '../../src/engine/jobs/queues.js';
import { RequestTallies } from '../../src/engine/run/request-tally.js';
import { RunGaveUpError } from '../../src/engine/run/run-cancel-watch.js';
import { RunStore } from '../../src/engine/run/run-store.js';
import type { SliceReader } from '../../src/engine/fetch/slice-reader.js';
import { createLogger } from '../../src/log.js';
import type { SyncMetrics } from '../../src/ops/sync-metrics.js';
import { testAvailability } from '../support/availability.js';
import { deletePrefix, testRedis, uniquePrefix } from '../support/redis.js';
import { parseConfig } from '../../src/configuration.js';

/**
 * How a fetch job ends on a failure its reader throws: a transient one goes back to BullMQ for another attempt; one
 * that comes back the same every time fails the slice at once, recorded, without the job's other attempts.
 */

const DAY = '2026-11-20';
const DATA: FetchJobData = {
  runId: 'run-1',
  brandId: 1,
  stream: 'conversations',
  sliceId: `1|conversations|${DAY}`,
  slice: { key: DAY, day: DAY, from: DAY, to: DAY, params: {} },
  refetch: 0,
};
let redis: Redis;
let prefix: string;
let queues: Queues;

beforeEach(async () => {
  redis = testRedis();
  prefix = uniquePrefix('fetch-failures');
  queues = openQueues(redis, prefix);
  // Jobs are added only for a run Redis knows (src/engine/run/run-gone.ts).
  await new RunStore(redis, prefix).create({
    runId: DATA.runId,
    kind: 'backfill',
    brands: [1],
    streams: ['conversations'],
    today: DAY,
    from: DAY,
    to: DAY,
    status: 'running',
    startedAt: new Date().toISOString(),
    finishedAt: null,
    phase: 1,
    published: null,
    error: null,
  });
});
afterEach(async () => {
  await queues.close();
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

/** The fetch processor with a reader whose every read is `read`, and no API behind it. */
function processorWith(read: SliceReader['read'], deps: Partial<FetchProcessorDeps> = {}) {
  return fetchProcessor({
    redis,
    prefix,
    queues,
    client: {} as ApiClient,
    sync: parseConfig({}).sync,
    tallies: new RequestTallies(),
    log: createLogger({ level: 'silent' }),
    reader: { read },
    availability: testAvailability(redis, prefix),
    signal: new AbortController().signal,
    stopping: () => false,
    ...deps,
  });
}

/** Runs one attempt of a fetch job whose reader throws `failure`; what the job did, and the commit it handed over. */
async function attemptWith(failure: Error) {
  const process = processorWith(() => Promise.reject(failure));
  const job = {
    id: 'fetch-1',
    name: 'fetch',
    data: DATA,
    attemptsMade: 0,
    opts: { attempts: 4 },
    updateData: async () => undefined,
  } as unknown as Job;
  const thrown = await process(job).then(
    () => undefined,
    (error: unknown) => error,
  );
  const commits = await queues.load.getJobs(['waiting', 'prioritized', 'delayed']);
  return {
    thrown,
    commits: commits.map((commit) => commit.data as { status: string; attempts: number; error: string }),
  };
}

describe('a fetch job whose read fails', () => {
  it('goes back to BullMQ for another attempt on a transient failure (a 5xx storm)', async () => {
    const { thrown, commits } = await attemptWith(
      new TransientError('HTTP 503 unavailable', { endpoint: 'GET /x' }, 'server_error'),
    );
    expect(thrown).toBeInstanceOf(TransientError);
    expect(commits).toEqual([]);
  });

  it('leaves a slice whose wait the stop ended, come back from a fetch thread, to BullMQ: no attempt spent, nothing recorded', async () => {
    // As the fetch threads hand it over: serialized, then revived on the main thread.
    const fromThread = reviveError(
      serializeError(new StoppedWaitingError('GET /x: the process is stopping, and the call stopped waiting')),
    );
    expect(fromThread).toBeInstanceOf(StoppedWaitingError);
    // Without the job's lock token, the slice cannot be handed back: BullMQ's stalled check gives it to the next worker.
    const { thrown, commits } = await attemptWith(fromThread);
    expect(thrown).toBeInstanceOf(WaitingError);
    expect(commits).toEqual([]);
  });

  it('fails a slice its run gave up on while it was read, come back from a fetch thread, as api_unavailable', async () => {
    const fromThread = reviveError(
      serializeError(new RunGaveUpError('run r stopped waiting for the API while this slice was read')),
    );
    expect(fromThread).toBeInstanceOf(RunGaveUpError);
    // The run gave up on an outage two slices met, which no slice was read back since.
    const outages = new OutageMemo(redis, prefix);
    const now = Date.now();
    await outages.sighted(DATA.runId, '1|conversations|2026-11-18', now - 60_000, now);
    await outages.sighted(DATA.runId, '1|conversations|2026-11-19', now - 60_000, now);
    await outages.giveUp(DATA.runId, now);
    const { thrown, commits } = await attemptWith(fromThread);
    expect(thrown).toBeUndefined();
    expect(commits).toEqual([expect.objectContaining({ status: 'failed', errorCode: 'api_unavailable' })]);
  });

  it("tries a slice stopped by its run's give-up again when the outage ended meanwhile (another slice was read back)", async () => {
    // Nothing on record: the outage the run gave up on was ended by a slice read back.
    const process = processorWith(() => Promise.reject(new RunGaveUpError('run r stopped waiting')));
    const job = {
      id: 'fetch-1',
      name: 'fetch',
      data: DATA,
      attemptsMade: 0,
      opts: { attempts: 4 },
      updateData: async () => undefined,
    } as unknown as Job;
    const thrown = await process(job).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(thrown).toBeInstanceOf(RunGaveUpError);
    expect(await queues.load.getJobs(['waiting', 'prioritized', 'delayed'])).toEqual([]);
  });

  it("fails the slice at once on an answer whose envelope is not the spec's, which comes back the same", async () => {
    const { thrown, commits } = await attemptWith(
      new TransientError(
        "GET /x: the answer's envelope does not match the spec",
        { endpoint: 'GET /x' },
        'bad_envelope',
      ),
    );
    // Before, it was tried 4 times, each at 5 requests: 20 requests a slice, for every slice of the stream.
    expect(thrown).toBeUndefined();
    // Its code had said 'transient', telling a user to wait for an answer that comes back the same.
    expect(commits).toMatchObject([
      {
        status: 'failed',
        attempts: 1,
        error: expect.stringContaining('envelope does not match'),
        errorCode: 'bad_answer',
      },
    ]);
  });
});

describe('a fetch job of a brand whose key or access the API already refused', () => {
  /** One attempt of brand 2's slice after `refusal` was remembered: the commit it handed over, and the reads made. */
  async function skippedAfter(refusal: Parameters<AccessMemo['remember']>[0]) {
    const apiKey = 'bvk_unit_test_key_0001';
    await new AccessMemo(redis, prefix, apiKey).remember(refusal);
    let reads = 0;
    const process = processorWith(() => ((reads += 1), Promise.reject(new Error('not asked'))), {
      availability: testAvailability(redis, prefix, { apiKey }),
    });
    const job = {
      id: 'fetch-2',
      name: 'fetch',
      data: { ...DATA, brandId: 2, sliceId: `2|conversations|${DAY}` },
      attemptsMade: 0,
      opts: { attempts: 4 },
      updateData: async () => undefined,
    } as unknown as Job;
    await process(job);
    const commits = await queues.load.getJobs(['waiting', 'prioritized', 'delayed']);
    return {
      reads,
      commits: commits.map((commit) => commit.data as { status: string; error: string; errorCode: string }),
    };
  }
  const AT = '2026-11-20T10:00:00.000Z';

  it("says the key was refused before quoting the answer, which was another brand's", async () => {
    const { reads, commits } = await skippedAfter({
      brandId: null,
      errorCode: 'unauthorized',
      message: 'GET /customer/v1/brands/1/conversations: HTTP 401 unauthorized',
      requestId: null,
      at: AT,
    });
    expect(reads).toBe(0);
    expect(commits).toMatchObject([
      {
        status: 'failed',
        errorCode: 'unauthorized',
        error: `skipped without a request: the API refused the key at ${AT}; its answer then: GET /customer/v1/brands/1/conversations: HTTP 401 unauthorized`,
      },
    ]);
  });

  it('names the brand, or the stream of the brand, the API refused', async () => {
    const brand = await skippedAfter({
      brandId: 2,
      errorCode: 'brand_access_denied',
      message: 'GET /customer/v1/brands/2/visibility: HTTP 403',
      requestId: null,
      at: AT,
    });
    expect(brand.commits[0]!.error).toMatch(/^skipped without a request: the API refused brand 2 at /);
  });
});

// A slice that meets a 429 storm or an API away pauses the fetch queue. While the process stops, that pause started
// anew inside BullMQ's close (which had already cut the pause it found short): the worker sat out the pause, up to a
// minute, and a stop while the API was down took the whole shutdown deadline. A stopping process hands the slice back
// instead, without a pause, as it does with a read its stop cut short.

/** One fetch job, read by a worker whose process is stopping, the read failing with `failure`; what the queue holds after. */
async function readWhileStopping(
  failure: () => Error,
  stopping: () => boolean = () => true,
  heard: KeyAnswers = new KeyAnswers(),
) {
  const outages = new OutageMemo(redis, prefix);
  // Another slice of the run already found the API away, so this one's absence is the run's outage.
  await outages.sighted(DATA.runId, '1|conversations|2026-11-19', Date.now() - 1_000, Date.now());
  let reads = 0;
  const outcomes: string[] = [];
  const metrics = {
    sliceFetched: (_stream: string, status: string) => void outcomes.push(status),
  } as unknown as SyncMetrics;
  let readDone!: () => void;
  const read = new Promise<void>((resolve) => (readDone = resolve));
  const processor = processorWith(
    () => {
      reads += 1;
      readDone();
      return Promise.reject(failure());
    },
    { availability: testAvailability(redis, prefix, { heard }), stopping, metrics },
  );
  await queues.fetch.add('fetch', DATA, { jobId: 'fetch-1' });
  const workerConnection = testRedis();
  const worker = new Worker(FETCH_QUEUE, processor, { connection: workerConnection, prefix, concurrency: 1 });
  worker.on('error', () => undefined);
  await read;
  // The process stops as the read fails: BullMQ's close begins while the job ends.
  const closing = worker.close().then(() => 'closed');
  const job = await queues.fetch.getJob('fetch-1');
  for (let tries = 0; tries < 100 && (await job?.getState()) === 'active'; tries += 1)
    await new Promise((resolve) => setTimeout(resolve, 20));
  const pauseMs = await queues.fetch.getRateLimitTtl();
  const closedWithin = await Promise.race([
    closing,
    new Promise((resolve) => setTimeout(() => resolve('still closing after 8 s'), 8_000)),
  ]);
  workerConnection.disconnect();
  const after = await queues.fetch.getJob('fetch-1');
  return { reads, closedWithin, pauseMs, state: await after?.getState(), attemptsMade: after?.attemptsMade, outcomes };
}

describe('a slice that would pause the fetch queue while its process stops', () => {
  it('goes back to the queue without pausing it on a 429 storm', async () => {
    const after = await readWhileStopping(() => new RateLimitedError('HTTP 429', { endpoint: 'GET /x' }, 30_000));
    expect(after).toMatchObject({ reads: 1, closedWithin: 'closed', state: 'waiting', attemptsMade: 0 });
    expect(after.pauseMs).toBeLessThanOrEqual(0);
  });

  it('goes back to the queue without pausing it while the API is away', async () => {
    const after = await readWhileStopping(() => {
      const away = new TransientError('no answer from the API', { endpoint: 'GET /x' }, 'network');
      away.apiUnavailable = true;
      away.unansweredSince = Date.now() - 2_000;
      return away;
    });
    expect(after).toMatchObject({
      reads: 1,
      closedWithin: 'closed',
      state: 'waiting',
      attemptsMade: 0,
      outcomes: ['retry'],
    });
    expect(after.pauseMs).toBeLessThanOrEqual(0);
  });

  it('counts its retry once when the stop begins while it pauses the queue for the API away', async () => {
    let asked = 0;
    // Not stopping when the read fails nor before the pause; stopping once the queue is paused.
    const after = await readWhileStopping(
      () => {
        const away = new TransientError('no answer from the API', { endpoint: 'GET /x' }, 'network');
        away.apiUnavailable = true;
        away.unansweredSince = Date.now() - 2_000;
        return away;
      },
      () => ++asked >= 3,
    );
    expect(after).toMatchObject({
      reads: 1,
      closedWithin: 'closed',
      state: 'waiting',
      attemptsMade: 0,
      outcomes: ['retry'],
    });
  });
});

/** A process whose last answer, on any fetch thread, came at `at`. */
function answeredAt(at: number): KeyAnswers {
  const heard = new KeyAnswers();
  heard.observe({ outcome: 'ok', answeredAt: at }, at);
  return heard;
}

describe('a slice whose call met the API away while another fetch thread was answered', () => {
  it('waits in the paused queue, no attempt spent, when that answer came after the call began but the whole tolerance ago', async () => {
    const tolerance = outageToleranceMs(parseConfig({}).sync)!;
    // The call was sent just before the API began to hang; its thread had no answer since. Another thread's call was
    // answered 200 ms later: judged by it alone, the API answered, and the slice spent an attempt.
    const callSince = Date.now() - tolerance - 60_000;
    const after = await readWhileStopping(
      () => {
        const away = new TransientError('no answer from the API', { endpoint: 'GET /x' }, 'network');
        away.apiUnavailable = true;
        away.unansweredSince = callSince;
        return away;
      },
      () => false,
      answeredAt(callSince + 200),
    );
    expect(after).toMatchObject({
      reads: 1,
      closedWithin: 'closed',
      state: 'waiting',
      attemptsMade: 0,
      outcomes: ['retry'],
    });
    expect(after.pauseMs).toBeGreaterThan(0);
  });
});
