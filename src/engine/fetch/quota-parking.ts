import { DelayedError, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import { RequestQuota, withRequestQuota, type QuotaClass } from '../../api/rate/request-quota.js';
import { configuredRateBudget } from '../../api/rate/rate-budget.js';
import { parseBudgetWindow } from '../../config/budget-window.js';
import type { Logger } from '../../log.js';
import { redisKeys } from '../../redis-keys.js';
import { groupBy } from '../../group-by.js';
import type { FetchJobData } from '../jobs/job-data.js';
import type { Queues } from '../jobs/queues.js';
import { KEEP_SECONDS, RunStore } from '../run/run-store.js';
import type { Config } from '../../configuration.js';

/**
 * Slices waiting for the budget's next window (docs/quota.md): the fetch job is delayed to the window's end, with no
 * attempt spent, and noted in a sorted set; `resumeParkedFetches` promotes due jobs newest day first (or the delay).
 */

interface ParkingDeps {
  redis: Redis;
  prefix: string;
}

const runKinds = new Map<string, QuotaClass>();

/** The class a run's requests count against: backfills their share, every other run the whole window. */
export async function quotaClassOf(deps: ParkingDeps, runId: string): Promise<QuotaClass | undefined> {
  const known = runKinds.get(runId);
  if (known) return known;
  const meta = await new RunStore(deps.redis, deps.prefix).get(runId);
  if (!meta) return undefined;
  const kind: QuotaClass = meta.kind === 'backfill' ? 'backfill' : 'sync';
  if (runKinds.size >= 1_000) runKinds.clear();
  runKinds.set(runId, kind);
  return kind;
}

/** The most requests one slice of the stream has taken (1 before any): a slice is begun only when that much is left. */
export async function sliceEstimate(deps: ParkingDeps, stream: string): Promise<number> {
  const most = Number(await deps.redis.hget(redisKeys(deps.prefix).quotaEstimate, stream));
  return Number.isFinite(most) && most > 0 ? most : 1;
}

const KEEP_LARGER = `
local current = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') or 0
if tonumber(ARGV[2]) > current then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

export async function recordSliceRequests(deps: ParkingDeps, stream: string, requests: number): Promise<void> {
  if (requests <= 0) return;
  const key = redisKeys(deps.prefix).quotaEstimate;
  await deps.redis.eval(KEEP_LARGER, 1, key, stream, String(requests), String(KEEP_SECONDS * 1000));
}

/** Notes a parked job; the set lives at least `keepMs` more (never shortened), so it goes once no budget parks any. */
const NOTE_PARKED = `
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[1], ARGV[3]) end
return 1`;

/** Delays the job until `resumesAt` (quota clock), noted for `resumeParkedFetches`; throws BullMQ's DelayedError. */
export async function parkForQuota(
  deps: ParkingDeps,
  quota: RequestQuota,
  job: Job,
  lockToken: string | undefined,
  resumesAt: number,
  log: Logger,
  carryTally: () => Promise<void>,
): Promise<never> {
  await carryTally();
  // Kept a window past the job's own delay: by then the delay alone has put the job back (test/e2e/daily-quota.int.test.ts).
  const keepMs = String(quota.msUntil(resumesAt) + quota.settings.windowMs);
  await deps.redis.eval(NOTE_PARKED, 1, redisKeys(deps.prefix).quotaParked, String(resumesAt), job.id!, keepMs);
  log.info(
    { resumesAt: new Date(resumesAt).toISOString() },
    'the request budget of this window is spent: the slice waits for the next window',
  );
  await job.moveToDelayed(Date.now() + quota.msUntil(resumesAt), lockToken);
  throw new DelayedError();
}

/** The parked fetch jobs whose window has come by `now` (quota clock) go back to the queue, newest day first. */
async function resumeParkedFetches(
  redis: Redis,
  prefix: string,
  queues: Queues,
  now: number,
  log: Logger,
): Promise<number> {
  const key = redisKeys(prefix).quotaParked;
  const due = await redis.zrangebyscore(key, '-inf', now);
  if (due.length === 0) return 0;
  const jobs = (await Promise.all(due.map((id) => queues.fetch.getJob(id)))).filter(
    (job): job is Job => job !== undefined,
  );
  jobs.sort((a, b) =>
    String((b.data as FetchJobData).slice.day ?? '').localeCompare(String((a.data as FetchJobData).slice.day ?? '')),
  );
  const found = new Set(jobs.map((job) => job.id));
  const gone = due.filter((id) => !found.has(id));
  if (gone.length) await redis.zrem(key, ...gone);
  let resumed = 0;
  for (const job of jobs) {
    // Taken off before the promote: a job promoted may run and wait again at once, noting itself anew.
    await redis.zrem(key, job.id!);
    if (await job.isDelayed()) {
      await job.promote().catch(() => undefined);
      resumed += 1;
    }
  }
  if (resumed) log.info({ resumed }, 'a new window of the request budget: the slices that waited for it go on');
  return resumed;
}

/** The fetch jobs waiting for the request budget's next window, and when each may go on (quota clock). */
async function parkedFetches(
  redis: Redis,
  prefix: string,
  queues: Queues,
): Promise<Array<{ data: FetchJobData; resumesAt: number }>> {
  const entries = await redis.zrange(redisKeys(prefix).quotaParked, 0, -1, 'WITHSCORES');
  const parked: Array<{ data: FetchJobData; resumesAt: number }> = [];
  for (let index = 0; index < entries.length; index += 2) {
    const job = await queues.fetch.getJob(entries[index]!);
    if (job && (await job.isDelayed()))
      parked.push({ data: job.data as FetchJobData, resumesAt: Number(entries[index + 1]) });
  }
  return parked;
}

/** The key's request budget under `config`, or undefined when `api.dailyRequestBudget` is not set. */
export function requestQuotaOf(config: Config, redis: Redis, clock?: () => number): RequestQuota | undefined {
  const budget = config.api.dailyRequestBudget;
  if (budget === undefined) return undefined;
  const windowMs = parseBudgetWindow(config.api.requestBudgetWindow)!;
  return new RequestQuota({
    redis,
    prefix: config.redisPrefix,
    apiKey: config.api.apiKey ?? '',
    settings: { budget, windowMs, reservedForSync: config.api.reservedForSync },
    clock,
  });
}

/** What a process's fetches pace with: the key's shared rate (first answer first), within the quota when one is set. */
export function fetchBudget(config: Config, redis: Redis, log: Logger, clock?: () => number) {
  const rate = configuredRateBudget(config, redis, { logger: log, firstAnswerFirst: true });
  const quota = requestQuotaOf(config, redis, clock);
  return { quota, budget: quota ? withRequestQuota(rate, quota) : rate };
}

/** How often the parked slices are looked at against the quota's clock. */
const RESUME_CHECK_MS = 1_000;

/** Resumes the parked slices whose window has come, checked every second; returns the stop. */
export function resumeEachWindow(
  redis: Redis,
  prefix: string,
  queues: Queues,
  clock: () => number,
  log: Logger,
): () => void {
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    resumeParkedFetches(redis, prefix, queues, clock(), log)
      .catch((error: Error) =>
        log.warn({ err: error.message }, 'could not resume the slices waiting for the request budget; trying again'),
      )
      .finally(() => (busy = false));
  }, RESUME_CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** What `bvsync status` says of the request budget: this window's spend, and the runs waiting for the next one. */
export interface QuotaStatus {
  budget: number;
  /** What backfills may spend of each window (the rest is kept for sync runs). */
  backfillShare: number;
  window: { start: string; end: string };
  spent: number;
  /** Until when a 429 of hours said the key's quota is spent, if it still holds. */
  spentUntil: string | null;
  /** Per run: slices and days waiting, the requests they are estimated to need, and when they go on. */
  waiting: Array<{ runId: string; slices: number; days: number; requests: number; resumesAt: string }>;
}

export async function quotaStatus(
  redis: Redis,
  config: Config,
  queues: Queues,
  clock?: () => number,
): Promise<QuotaStatus | null> {
  const quota = requestQuotaOf(config, redis, clock);
  if (!quota) return null;
  const state = await quota.state();
  const waiting: QuotaStatus['waiting'] = [];
  const parked = await parkedFetches(redis, config.redisPrefix, queues);
  for (const [runId, ofRun] of groupBy(parked, ({ data }) => data.runId)) {
    const streams = await Promise.all(
      [...groupBy(ofRun, ({ data }) => data.stream)].map(
        async ([stream, slices]) =>
          slices.length * (await sliceEstimate({ redis, prefix: config.redisPrefix }, stream)),
      ),
    );
    // Reduced, not spread into Math.min: a backfill may park more slices than a call takes arguments.
    const resumesAt = ofRun.reduce((soonest, each) => Math.min(soonest, each.resumesAt), Number.POSITIVE_INFINITY);
    waiting.push({
      runId,
      slices: ofRun.length,
      days: new Set(ofRun.flatMap(({ data }) => (data.slice.day ? [data.slice.day] : []))).size,
      requests: streams.reduce((sum, each) => sum + each, 0),
      resumesAt: new Date(resumesAt).toISOString(),
    });
  }
  return {
    budget: quota.settings.budget,
    backfillShare: quota.limitOf('backfill'),
    window: { start: new Date(state.window.start).toISOString(), end: new Date(state.window.end).toISOString() },
    spent: state.spent,
    spentUntil: state.blockedUntil ? new Date(state.blockedUntil).toISOString() : null,
    waiting,
  };
}
