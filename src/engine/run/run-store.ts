import { setTimeout as sleep } from 'node:timers/promises';
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  isFinishedRunStatus,
  UNFINISHED_RUN_STATUSES,
  type RunKind,
  type RunStatus,
  type SliceStatus,
} from '../../vocabulary.js';
import { redisKeys, type RedisKeys } from '../../redis-keys.js';
import type { PlanGap } from '../plan/plan.js';
import type { RunStart } from '../../warehouse/state/run-log.js';
import { RunGoneError } from './run-gone.js';
import { brandStreamId } from '../../slice-ids.js';
import { groupBy } from '../../group-by.js';

/**
 * A run's live view in Redis, so every process sees the same progress without opening DuckDB (only the writer may).
 * DuckDB stays the record of what was loaded; this is progress and counters only, and it expires.
 */

export interface RunMeta {
  runId: string;
  kind: RunKind;
  brands: number[];
  streams: string[];
  /** The UTC day the run treats as today. */
  today: string;
  /** Backfill window, or the window the incremental plan chose (filled by the planner). */
  from: string | null;
  to: string | null;
  status: RunStatus;
  startedAt: string;
  finishedAt: string | null;
  /** The plan phase in progress: phase 2 needs what phase 1 loaded (domains, topic ids). */
  phase: number;
  published: string | null;
  error: string | null;
  /** A backfill that leaves out the slices the file has complete (`backfill --skip-complete`); absent otherwise. */
  skipComplete?: boolean;
  /** How many planned slices `skipComplete` left out, by plan phase (a plan job replayed counts once); absent when none. */
  skipped?: Record<string, number>;
  /**
   * Slices a scheduled run left to another unfinished run that held them, per `brand|stream` (plan-job.ts,
   * withoutHeldSlices); absent when none.
   */
  held?: Record<string, number>;
  /** Streams the planner could plan nothing for, per brand, and why (plan.ts, PlanGap); absent when none. */
  gaps?: PlanGap[];
  /**
   * The Redis key that makes this run the one run of its kind, window, brands and streams while it is unfinished
   * (see `createOrAttach`); absent for scheduled runs, whose slot-derived id does the same.
   */
  windowKey?: string;
  /**
   * A run of kind `heal`: the scheduled run whose round it reads for, and the slices' brand, stream and day
   * (`brand|stream|day`) it reads, the rest of its window left out (heal.ts); absent otherwise.
   */
  heal?: { of: string; reads: string[] };
  /** The published file the run was started for (absolute), so a writer of another file does not load it; absent in runs of older versions. */
  db?: string;
}

/** The run's `_sync_runs` row, made from its record. */
export function runStartOf({ runId, kind, brands, streams, from, to }: RunMeta): RunStart {
  return { runId, kind, brands, streams, windowStart: from, windowEnd: to };
}

/** Counters of one brand and stream within a run. */
export interface StreamCounters {
  planned: number;
  done: number;
  failed: number;
  incomplete: number;
  rows: number;
  rejects: number;
  requests: number;
  retries: number;
  rateLimited: number;
}

/** A planned slice, as its run's counters file it. */
interface PlannedSliceId {
  sliceId: string;
  brandId: number;
  stream: string;
}

/** What a slice's outcome adds to its brand and stream's counters, besides `done` and its status's. */
const OUTCOME_COUNTERS = ['rows', 'rejects', 'requests', 'retries', 'rateLimited'] as const;

export interface SliceOutcome extends PlannedSliceId, Pick<StreamCounters, (typeof OUTCOME_COUNTERS)[number]> {
  status: SliceStatus;
  /** Keys deleted in the same step once the outcome is recorded: the slice's chunks; default none. */
  chunkKeys?: string[];
}

/** Every counter at zero: typed whole, so a counter added to StreamCounters is one of COUNTER_NAMES too. */
const NO_COUNTERS: StreamCounters = {
  planned: 0,
  done: 0,
  failed: 0,
  incomplete: 0,
  rows: 0,
  rejects: 0,
  requests: 0,
  retries: 0,
  rateLimited: 0,
};
const COUNTER_NAMES = Object.keys(NO_COUNTERS) as Array<keyof StreamCounters>;
/** How long a run's record stays in Redis after its last write; quota-parking.ts keeps its estimates as long. */
export const KEEP_SECONDS = 14 * 24 * 60 * 60;

// A slice's outcome counts once, as commit jobs replay; nothing is written once the run (KEYS[3]) is gone, lest its
// counters outlive it (run-gone.ts). KEYS[4] on, its chunks, are deleted once the outcome is recorded, never before.
const RECORD_OUTCOME = `
if redis.call('exists', KEYS[3]) == 0 then return -1 end
local added = redis.call('sadd', KEYS[1], ARGV[1])
if #KEYS > 3 then redis.call('del', unpack(KEYS, 4)) end
if added == 0 then return 0 end
for i = 2, #ARGV, 2 do redis.call('hincrby', KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call('expire', KEYS[1], ${KEEP_SECONDS})
redis.call('expire', KEYS[2], ${KEEP_SECONDS})
return 1`;

// Adds the planned slices (id, stream pairs from ARGV[3]), counts the new, then sets the record to ARGV[2] if it
// still reads ARGV[1]: slices and phase in one round trip. Answers {added, 1 when set}; {-1, 0} when the run is gone.
const RECORD_PLANNED_THEN_SET = `
local current = redis.call('hget', KEYS[3], 'meta')
if not current then return {-1, 0} end
local added = 0
for i = 3, #ARGV, 2 do
  if redis.call('sadd', KEYS[1], ARGV[i]) == 1 then
    added = added + 1
    redis.call('hincrby', KEYS[2], ARGV[i + 1], 1)
  end
end
redis.call('expire', KEYS[1], ${KEEP_SECONDS})
redis.call('expire', KEYS[2], ${KEEP_SECONDS})
if current ~= ARGV[1] then return {added, 0} end
redis.call('hset', KEYS[3], 'meta', ARGV[2])
return {added, 1}`;

// The index's runs since ARGV[1], newest first, at most ARGV[2], each with its record; runs whose record is gone are
// left out. Records are read by keys built from ARGV[3], as CREATE_OR_ATTACH reads them: the prefix's hash slot.
const RECENT_RECORDS = `
local ids = redis.call('zrevrangebyscore', KEYS[1], '+inf', ARGV[1], 'LIMIT', 0, ARGV[2])
local records = {}
for _, id in ipairs(ids) do
  local text = redis.call('hget', ARGV[3] .. id, 'meta')
  if text then records[#records + 1] = {id, text} end
end
return records`;

// A run recorded unless it exists, and indexed when new, in one round trip.
const CREATE = `
local created = redis.call('hsetnx', KEYS[1], 'meta', ARGV[1])
redis.call('expire', KEYS[1], ${KEEP_SECONDS})
if created == 1 then redis.call('zadd', KEYS[2], ARGV[2], ARGV[3]) end
return created`;

const UNFINISHED_LUA = `{${UNFINISHED_RUN_STATUSES.map((status) => `['${status}'] = true`).join(', ')}}`;

// One run per window, checked and taken in one script so two commands side by side cannot both create one; a key
// whose run is finished or gone is taken over. The record's key (ARGV[5] .. id) is built here: the prefix's hash slot.
const CREATE_OR_ATTACH = `
local current = redis.call('get', KEYS[1])
if current then
  local text = redis.call('hget', ARGV[5] .. current, 'meta')
  if text and (${UNFINISHED_LUA})[cjson.decode(text).status] then return {0, current} end
end
redis.call('hset', KEYS[2], 'meta', ARGV[1])
redis.call('expire', KEYS[2], ARGV[4])
redis.call('zadd', KEYS[3], ARGV[3], ARGV[2])
redis.call('set', KEYS[1], ARGV[2], 'EX', ARGV[4])
return {1, ARGV[2]}`;

// A run's record changes only if nobody changed it since it was read (the caller reads, patches and tries again).
// When the new status ends the run, its window key is released, if it still names this run.
const COMPARE_AND_SET = `
local current = redis.call('hget', KEYS[1], 'meta')
if not current then return -1 end
if current ~= ARGV[1] then return 0 end
redis.call('hset', KEYS[1], 'meta', ARGV[2])
if ARGV[3] == '1' and redis.call('get', KEYS[2]) == ARGV[4] then redis.call('del', KEYS[2]) end
return 1`;

/** Read-patch-write rounds an update tries before giving up on a record others keep changing. */
const UPDATE_ATTEMPTS = 20;

/** Records of unfinished runs a store remembers as it last read or wrote them, for `update`'s first try. */
const RECORDS_REMEMBERED = 100;

export class RunStore {
  private readonly keys: RedisKeys;
  /**
   * Each run's record as this store last read or wrote it. An update tries its compare-and-set on it first, one round
   * trip instead of a read and a write; a record changed since fails the compare and is read again.
   */
  private readonly seen = new Map<string, string>();

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = redisKeys(prefix);
  }

  private key(runId: string, part = ''): string {
    return this.keys.run(runId, part);
  }

  /** The Redis key naming the unfinished run of a window (`identity`: kind, window, brands and streams, spelled out). */
  windowKey(identity: string): string {
    return this.keys.runWindow(createHash('sha256').update(identity).digest('hex').slice(0, 24));
  }

  /** Creates the run unless it exists (a scheduled slot planned twice is one run). Returns whether it was new. */
  async create(meta: RunMeta): Promise<boolean> {
    const created = await this.redis.eval(
      CREATE,
      2,
      this.key(meta.runId),
      this.keys.runs,
      JSON.stringify(meta),
      Date.parse(meta.startedAt),
      meta.runId,
    );
    return created === 1;
  }

  /**
   * Creates the run as the one run of its window (`meta.windowKey`), unless an unfinished run holds that window:
   * then nothing is created and that run's record is returned, to attach to.
   */
  async createOrAttach(meta: RunMeta & { windowKey: string }): Promise<{ created: boolean; meta: RunMeta }> {
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      const [created, runId] = (await this.redis.eval(
        CREATE_OR_ATTACH,
        3,
        meta.windowKey,
        this.key(meta.runId),
        this.keys.runs,
        JSON.stringify(meta),
        meta.runId,
        Date.parse(meta.startedAt),
        KEEP_SECONDS,
        this.key(''),
      )) as [number, string];
      if (created === 1) return { created: true, meta };
      const existing = await this.get(runId);
      // It finished or vanished between the script and this read: the window is free, so try again.
      if (existing && !isFinishedRunStatus(existing.status)) return { created: false, meta: existing };
    }
    throw new Error(`could not start or find the run of ${meta.windowKey}: its runs kept changing; try again`);
  }

  /**
   * Takes the one right to tell people of `event` for this run: true for the first process that asks, false after. The
   * writer that finalizes and the command that waits on the run both ask, so a receiver hears of a run once.
   */
  async claimNotice(runId: string, event: string): Promise<boolean> {
    return (await this.redis.set(this.key(runId, `notified:${event}`), '1', 'EX', KEEP_SECONDS, 'NX')) === 'OK';
  }

  async get(runId: string): Promise<RunMeta | null> {
    const text = await this.redis.hget(this.key(runId), 'meta');
    this.remember(runId, text);
    return text ? (JSON.parse(text) as RunMeta) : null;
  }

  private remember(runId: string, text: string | null): void {
    this.seen.delete(runId);
    if (text === null || isFinishedRunStatus((JSON.parse(text) as RunMeta).status)) return;
    this.seen.set(runId, text);
    if (this.seen.size > RECORDS_REMEMBERED) this.seen.delete(this.seen.keys().next().value!);
  }

  /**
   * Patches a run's record, if `onlyIf` accepts it (in the same compare-and-set); a finished record is final, as a job
   * still running at a cancel must not revive it. A patch that finishes the run releases its window.
   */
  async update(runId: string, patch: Partial<RunMeta>, onlyIf?: (current: RunMeta) => boolean): Promise<RunMeta> {
    let text = this.seen.get(runId);
    // The record remembered is tried first, without a read; after a failed compare, it is read afresh.
    let remembered = text !== undefined;
    for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
      if (!remembered) text = (await this.redis.hget(this.key(runId), 'meta')) ?? undefined;
      if (!text) throw new RunGoneError(runId);
      const current = JSON.parse(text) as RunMeta;
      if (isFinishedRunStatus(current.status) || (onlyIf && !onlyIf(current))) return current;
      const next: RunMeta = { ...current, ...patch };
      const release = isFinishedRunStatus(next.status) && next.windowKey !== undefined;
      const written = (await this.redis.eval(
        COMPARE_AND_SET,
        2,
        this.key(runId),
        next.windowKey ?? this.key(runId),
        text,
        JSON.stringify(next),
        release ? '1' : '0',
        runId,
      )) as number;
      this.seen.delete(runId);
      if (written === -1) throw new RunGoneError(runId);
      if (written === 1) {
        this.remember(runId, JSON.stringify(next));
        return next;
      }
      // A remembered record out of date costs a read, not a wait: it says nothing of a writer racing this one.
      if (!remembered) await sleep(5 + attempt * 5);
      remembered = false;
    }
    throw new Error(`could not update run ${runId}: its record kept changing under ${UPDATE_ATTEMPTS} tries`);
  }

  /** The newest runs first. */
  async recent(limit = 10): Promise<RunMeta[]> {
    const ids = await this.redis.zrevrange(this.keys.runs, 0, limit - 1);
    const metas = await Promise.all(ids.map((id) => this.get(id)));
    return metas.filter((meta): meta is RunMeta => meta !== null);
  }

  /**
   * Runs not finished (planning, running or finalizing) among those Redis still keeps, newest first: the index and
   * the records in one round trip. Proved by test/engine/run-store-update.int.test.ts.
   */
  async unfinished(limit = 500): Promise<RunMeta[]> {
    const since = Date.now() - KEEP_SECONDS * 1000;
    const listed = (await this.redis.eval(RECENT_RECORDS, 1, this.keys.runs, since, limit, this.key(''))) as Array<
      [string, string]
    >;
    const metas = listed.map(([runId, text]) => {
      this.remember(runId, text);
      return JSON.parse(text) as RunMeta;
    });
    return metas.filter((meta) => !isFinishedRunStatus(meta.status));
  }

  /**
   * Counts planned slices once each, then `update(runId, patch)`: one round trip while the remembered record is
   * current, else read and patched again. The patch must not finish the run (test/engine/run-store-update.int.test.ts).
   */
  async recordPlannedThenUpdate(runId: string, slices: PlannedSliceId[], patch: Partial<RunMeta>): Promise<RunMeta> {
    const text = this.seen.get(runId);
    const next: RunMeta | undefined = text === undefined ? undefined : { ...(JSON.parse(text) as RunMeta), ...patch };
    const [added, set] = (await this.redis.eval(
      RECORD_PLANNED_THEN_SET,
      3,
      this.key(runId, 'planned'),
      this.key(runId, 'stats'),
      this.key(runId),
      text ?? '',
      next ? JSON.stringify(next) : '',
      ...slices.flatMap((slice) => [slice.sliceId, `${brandStreamId(slice.brandId, slice.stream)}|planned`]),
    )) as [number, number];
    this.seen.delete(runId);
    if (added < 0) throw new RunGoneError(runId);
    if (set !== 1 || !next) return this.update(runId, patch);
    this.remember(runId, JSON.stringify(next));
    return next;
  }

  /** Of the slice ids given, those the run has planned already (a plan job replayed meets its own slices). */
  async plannedOf(runId: string, sliceIds: string[]): Promise<Set<string>> {
    if (sliceIds.length === 0) return new Set();
    const found = await this.redis.smismember(this.key(runId, 'planned'), ...sliceIds);
    return new Set(sliceIds.filter((_, index) => found[index] === 1));
  }

  /**
   * Records a slice's outcome once, and deletes its `chunkKeys`; returns false when it had been recorded already.
   * Throws RunGoneError for a run gone from Redis. Proved by test/engine/run-store-scripts.int.test.ts.
   */
  async recordOutcome(runId: string, outcome: SliceOutcome): Promise<boolean> {
    const field = (name: string) => `${brandStreamId(outcome.brandId, outcome.stream)}|${name}`;
    const args: Array<string | number> = [outcome.sliceId, field('done'), 1];
    if (outcome.status === 'failed') args.push(field('failed'), 1);
    if (outcome.status === 'incomplete') args.push(field('incomplete'), 1);
    for (const name of OUTCOME_COUNTERS) if (outcome[name]) args.push(field(name), outcome[name]);
    const chunks = outcome.chunkKeys ?? [];
    const recorded = (await this.redis.eval(
      RECORD_OUTCOME,
      3 + chunks.length,
      this.key(runId, 'done'),
      this.key(runId, 'stats'),
      this.key(runId),
      ...chunks,
      ...args,
    )) as number;
    if (recorded < 0) throw new RunGoneError(runId);
    return recorded === 1;
  }

  /** Whether a slice's outcome is recorded (its commit ran to the end once). */
  async isDone(runId: string, sliceId: string): Promise<boolean> {
    return (await this.redis.sismember(this.key(runId, 'done'), sliceId)) === 1;
  }

  /** Of the slices given, those whose outcome is recorded: one round trip per run, all runs asked at once. */
  async doneAmong(slices: Array<{ runId: string; sliceId: string }>): Promise<Set<string>> {
    const done = new Set<string>();
    await Promise.all(
      [...groupBy(slices, (slice) => slice.runId)].map(async ([runId, ofRun]) => {
        const found = await this.redis.smismember(this.key(runId, 'done'), ...ofRun.map((slice) => slice.sliceId));
        ofRun.forEach(({ sliceId }, index) => found[index] === 1 && done.add(`${runId}|${sliceId}`));
      }),
    );
    return done;
  }

  /** Planned and finished slice counts of the run (all phases planned so far). */
  async progress(runId: string): Promise<{ planned: number; done: number }> {
    const [planned, done] = await Promise.all([
      this.redis.scard(this.key(runId, 'planned')),
      this.redis.scard(this.key(runId, 'done')),
    ]);
    return { planned, done };
  }

  /** Counters per brand and stream, e.g. `{ '7|conversations': {...} }`. */
  async counters(runId: string): Promise<Map<string, StreamCounters>> {
    const raw = await this.redis.hgetall(this.key(runId, 'stats'));
    const result = new Map<string, StreamCounters>();
    for (const [field, value] of Object.entries(raw)) {
      const cut = field.lastIndexOf('|');
      const group = field.slice(0, cut);
      const name = field.slice(cut + 1) as keyof StreamCounters;
      if (!COUNTER_NAMES.includes(name)) continue;
      const counters = result.get(group) ?? { ...NO_COUNTERS };
      counters[name] = Number(value);
      result.set(group, counters);
    }
    return result;
  }
}

/** The counters of every brand and stream of a run, added up. */
export function totalCounters(counters: Iterable<StreamCounters>): StreamCounters {
  const total = { ...NO_COUNTERS };
  for (const each of counters) for (const name of COUNTER_NAMES) total[name] += each[name];
  return total;
}
