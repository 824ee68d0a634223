import { Job, type Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { commitJobSchema, type CommitJobData } from '../jobs/job-data.js';
import { redisKeys } from '../../redis-keys.js';
import type { SliceChunk } from '../../streams/run-slice.js';
import { decodeChunk } from '../fetch/chunk-codec.js';
import { sliceId } from '../../slice-ids.js';

/**
 * Most slices one transaction commits by default: a COMMIT costs the same whatever it holds, so waiting slices share
 * one, and the bound keeps a transaction, and what a failure reloads one by one, small.
 */
export const COMMIT_BATCH_SLICES = 64;

/**
 * Rows (all tables, rejects included) past which a slice commits alone: a large slice's COMMIT is a small part of its
 * cost, and many waiting slices' rows at once would raise the writer's memory for nothing.
 */
export const COMMIT_BATCH_ROWS = 5_000;

/** Round trip to Redis (ms) from which a transaction takes twice the slices and rows: a commit waits on four in sequence. */
export const FAR_COMMIT_MS = 20;

/** Most slices and rows of one transaction for a Redis this far (test/engine/waiting-commits.int.test.ts). */
export function commitBatchFor(roundTripMs: number): { slices: number; rows: number } {
  const times = roundTripMs >= FAR_COMMIT_MS ? 2 : 1;
  return { slices: times * COMMIT_BATCH_SLICES, rows: times * COMMIT_BATCH_ROWS };
}

/**
 * Waiting jobs of the load queue looked at for companions, per slice a transaction may hold: each is read from Redis,
 * and most waiting load jobs are commits.
 */
const LOOK_AHEAD_PER_SLICE = 2;

export interface WaitingCommit<T> {
  job: Job;
  prepared: T;
}

export interface TakeWaitingCommitsOptions<T> {
  redis: Redis;
  /** The Redis prefix of the run's keys (src/redis-keys.ts). */
  prefix: string;
  queue: Queue;
  /** The job being processed, and its data. */
  job: Job;
  own: CommitJobData;
  /** Slices in all, the job's own included; default COMMIT_BATCH_SLICES. */
  maxSlices?: number;
  /** Rows in all, the job's own included; default COMMIT_BATCH_ROWS. */
  maxRows?: number;
  /**
   * Makes a waiting commit, with its chunks read (undefined: one is gone), into what the loader needs; 'chunks-lost'
   * leaves the job to its own run.
   */
  prepare: (data: CommitJobData, chunks: SliceChunk[] | undefined) => Promise<T | 'chunks-lost'>;
}

/**
 * Small commit jobs of other slices, waiting and not done, to commit in `own`'s transaction. Their jobs stay queued
 * until the outcomes are recorded; after a crash they run and find their slice done, so each slice commits once.
 */
export async function takeWaitingCommits<T>(options: TakeWaitingCommitsOptions<T>): Promise<WaitingCommit<T>[]> {
  const maxSlices = options.maxSlices ?? COMMIT_BATCH_SLICES;
  const maxRows = options.maxRows ?? COMMIT_BATCH_ROWS;
  const { own } = options;
  const rows = own.rows + own.rejects;
  if (maxSlices <= 1 || rows > maxRows) return [];
  const waiting = await waitingCommits(options.redis, options.prefix, options.queue, {
    lookAhead: maxSlices * LOOK_AHEAD_PER_SLICE,
    ownJobId: options.job.id ?? '',
    ownSlice: sliceId(own.brandId, own.stream, own.slice.key),
    rowsLeft: maxRows - rows,
    most: maxSlices - 1,
  });
  const prepared = await Promise.all(
    waiting.map(async ({ job, chunks }): Promise<WaitingCommit<T> | undefined> => {
      const parsed = commitJobSchema.safeParse(job.data);
      // A job this version cannot read fails on its own run, with the message that says why.
      if (!parsed.success) return undefined;
      try {
        const ready = await options.prepare(parsed.data, chunks);
        return ready === 'chunks-lost' ? undefined : { job, prepared: ready };
      } catch {
        // Whatever went wrong is its own job's to report, with its attempts and its run marked failed if need be.
        return undefined;
      }
    }),
  );
  return prepared.filter((taken): taken is WaitingCommit<T> => taken !== undefined);
}

// Of the oldest ARGV[1] jobs, commits of undone slices but ARGV[6]/[7] (own id, slice), to ARGV[8] rows, ARGV[9] jobs;
// keys from the parts ARGV[2..5], ARGV[10] (one Cluster slot). Each answer: {id, data, 1 if all chunks there, chunks}.
const WAITING_COMMITS = `local ids = redis.call('LRANGE', KEYS[1], -tonumber(ARGV[1]), -1)
local rowsLeft, most = tonumber(ARGV[8]), tonumber(ARGV[9])
local taken = {[ARGV[7]] = true}
local commits = {}
for i = #ids, 1, -1 do
  if #commits >= most then break end
  local fields = redis.call('HMGET', ARGV[2] .. ids[i], 'name', 'data')
  local ok, data = false, nil
  if ids[i] ~= ARGV[6] and fields[1] == 'commit' and fields[2] then ok, data = pcall(cjson.decode, fields[2]) end
  if ok and type(data) == 'table' and type(data.slice) == 'table' and type(data.runId) == 'string'
    and type(data.sliceId) == 'string' and type(data.token) == 'string' and type(data.chunks) == 'number'
    and type(data.rows) == 'number' and type(data.rejects) == 'number' then
    local slice = tostring(data.brandId) .. '|' .. tostring(data.stream) .. '|' .. tostring(data.slice.key)
    local rows = data.rows + data.rejects
    if not taken[slice] and rows <= rowsLeft
      and redis.call('SISMEMBER', ARGV[3] .. data.runId .. ARGV[4], data.sliceId) == 0 then
      taken[slice] = true
      rowsLeft = rowsLeft - rows
      local chunks, whole = {}, 1
      for c = 0, data.chunks - 1 do
        local chunk = redis.call('GET', ARGV[5] .. data.token .. ARGV[10] .. c)
        if not chunk then whole = 0 break end
        chunks[#chunks + 1] = chunk
      end
      commits[#commits + 1] = {ids[i], fields[2], whole, chunks}
    end
  end
end
return commits`;

/** What `waitingCommits` looks for: the companions of one commit job. */
export interface WaitingCommitsAsk {
  /** Waiting jobs looked at, from the oldest. */
  lookAhead: number;
  /** The commit job's own id and slice (`brand|stream|key`), never taken. */
  ownJobId: string;
  ownSlice: string;
  /** Rows (rejects included) the companions may hold in all. */
  rowsLeft: number;
  /** Most companions. */
  most: number;
}

/**
 * The companions of a commit job, oldest first, each with its chunks (undefined when one is gone): commit jobs of
 * other slices, not done, within the rows left. Proved by test/engine/waiting-commits.int.test.ts.
 */
export async function waitingCommits(
  redis: Redis,
  prefix: string,
  queue: Queue,
  ask: WaitingCommitsAsk,
): Promise<Array<{ job: Job; chunks: SliceChunk[] | undefined }>> {
  const keys = redisKeys(prefix);
  // A key's fixed parts around the run id, the token and the index the script fills in.
  const done = keys.run('\u0000', 'done').split('\u0000');
  const [chunkBefore, chunkAfter] = keys.chunk('\u0000', 0).split('\u0000') as [string, string];
  // Answered as bytes: the chunks are gzip.
  const listed = (await redis.callBuffer(
    'eval',
    WAITING_COMMITS,
    1,
    queue.keys.wait!,
    ask.lookAhead,
    queue.toKey(''),
    ...done,
    chunkBefore,
    ask.ownJobId,
    ask.ownSlice,
    ask.rowsLeft,
    ask.most,
    chunkAfter.slice(0, -1),
  )) as Array<[Buffer, Buffer, number, Buffer[]]>;
  return listed.map(([id, data, whole, chunks]) => ({
    job: new Job(queue, 'commit', parseData(data.toString('utf8')), {}, id.toString('utf8')),
    chunks: whole === 1 ? chunks.map((chunk) => decodeChunk<SliceChunk>(chunk)) : undefined,
  }));
}

function parseData(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

// KEYS: wait list, events, meta, then per job its hash and done set (its hash again if unguarded); ARGV: id, slice
// pairs ('' none). Scans from the right, where companions wait. Per job: 1 removed, 0 absent, -1 its slice not done.
const REMOVE_WAITING = `local answers = {}
local maxEvents = tonumber(redis.call('HGET', KEYS[3], 'opts.maxLenEvents') or '10000') or 10000
for i = 1, #ARGV / 2 do
  local id, slice = ARGV[2 * i - 1], ARGV[2 * i]
  local jobKey = KEYS[2 * i + 2]
  if slice ~= '' and redis.call('SISMEMBER', KEYS[2 * i + 3], slice) == 0 then
    answers[i] = -1
  elseif redis.call('LREM', KEYS[1], -1, id) == 1 then
    redis.call('DEL', jobKey, jobKey .. ':logs')
    redis.call('XADD', KEYS[2], 'MAXLEN', '~', maxEvents, '*', 'event', 'removed', 'jobId', id, 'prev', 'waiting')
    answers[i] = 1
  else
    answers[i] = 0
  end
end
return answers`;

/** A job to remove once its slice's outcome is in its run's done set (`RedisKeys.run(runId, 'done')`). */
export interface DoneGuard {
  doneKey: string;
  sliceId: string;
}

/**
 * Removes committed companions' jobs in one round trip; a guarded job stays until its slice is done, so this may ride
 * with the outcomes' records; one no longer waiting goes by job.remove() (test/engine/waiting-removal.int.test.ts).
 */
export async function removeWaitingJobs(
  redis: Redis,
  queue: Queue,
  jobs: Job[],
  guards: Array<DoneGuard | undefined> = [],
): Promise<void> {
  const listed = jobs.flatMap((job, index) => (job.id === undefined ? [] : [{ job, guard: guards[index] }]));
  if (!listed.length) return;
  const keys = [queue.keys.wait!, queue.keys.events!, queue.keys.meta!];
  const args: string[] = [];
  for (const { job, guard } of listed) {
    keys.push(queue.toKey(job.id!), guard?.doneKey ?? queue.toKey(job.id!));
    args.push(job.id!, guard?.sliceId ?? '');
  }
  const answers = (await redis.eval(REMOVE_WAITING, keys.length, ...keys, ...args)) as number[];
  await Promise.all(
    listed.filter((_, index) => answers[index] === 0).map(({ job }) => job.remove().catch(() => undefined)),
  );
}
