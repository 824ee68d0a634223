import type { Redis } from 'ioredis';

/**
 * The live view of a run, in Redis, so that every process — the CLI waiting on a run it started, `status`, the
 * load worker deciding when a phase is over — sees the same progress without opening DuckDB (only the lease
 * holder may). DuckDB stays the record of what was loaded; this is progress and counters only, and it expires.
 */

export type RunKind = 'sync' | 'backfill' | 'scheduled';
export type RunStatus = 'planning' | 'running' | 'finalizing' | 'complete' | 'incomplete' | 'failed';

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

export interface SliceOutcome {
  sliceId: string;
  brandId: number;
  stream: string;
  status: 'complete' | 'incomplete' | 'failed';
  rows: number;
  rejects: number;
  requests: number;
  retries: number;
  rateLimited: number;
}

const COUNTER_NAMES: Array<keyof StreamCounters> = ['planned', 'done', 'failed', 'incomplete', 'rows', 'rejects', 'requests', 'retries', 'rateLimited'];
const KEEP_SECONDS = 14 * 24 * 60 * 60;

// A slice's outcome counts once, however often its commit job is replayed (jobs are at-least-once).
const RECORD_OUTCOME = `
if redis.call('sadd', KEYS[1], ARGV[1]) == 0 then return 0 end
for i = 2, #ARGV, 2 do redis.call('hincrby', KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call('expire', KEYS[1], ${KEEP_SECONDS})
redis.call('expire', KEYS[2], ${KEEP_SECONDS})
return 1`;

const RECORD_PLANNED = `
local added = 0
for i = 1, #ARGV, 2 do
  if redis.call('sadd', KEYS[1], ARGV[i]) == 1 then
    added = added + 1
    redis.call('hincrby', KEYS[2], ARGV[i + 1], 1)
  end
end
redis.call('expire', KEYS[1], ${KEEP_SECONDS})
redis.call('expire', KEYS[2], ${KEEP_SECONDS})
return added`;

export class RunStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(runId: string, part = ''): string {
    return `${this.prefix}:run:${runId}${part ? `:${part}` : ''}`;
  }

  /** Creates the run unless it exists (a scheduled slot planned twice is one run). Returns whether it was new. */
  async create(meta: RunMeta): Promise<boolean> {
    const created = await this.redis.hsetnx(this.key(meta.runId), 'meta', JSON.stringify(meta));
    await this.redis.expire(this.key(meta.runId), KEEP_SECONDS);
    if (created === 1) await this.redis.zadd(`${this.prefix}:runs`, Date.parse(meta.startedAt), meta.runId);
    return created === 1;
  }

  async get(runId: string): Promise<RunMeta | null> {
    const text = await this.redis.hget(this.key(runId), 'meta');
    return text ? (JSON.parse(text) as RunMeta) : null;
  }

  async update(runId: string, patch: Partial<RunMeta>): Promise<RunMeta> {
    const current = await this.get(runId);
    if (!current) throw new Error(`run ${runId} is not known to Redis`);
    const next = { ...current, ...patch };
    await this.redis.hset(this.key(runId), 'meta', JSON.stringify(next));
    return next;
  }

  /** The newest runs first. */
  async recent(limit = 10): Promise<RunMeta[]> {
    const ids = await this.redis.zrevrange(`${this.prefix}:runs`, 0, limit - 1);
    const metas = await Promise.all(ids.map((id) => this.get(id)));
    return metas.filter((meta): meta is RunMeta => meta !== null);
  }

  /** Counts planned slices once each; returns how many were new. */
  async recordPlanned(runId: string, slices: Array<{ sliceId: string; brandId: number; stream: string }>): Promise<number> {
    if (slices.length === 0) return 0;
    const args = slices.flatMap((slice) => [slice.sliceId, `${slice.brandId}|${slice.stream}|planned`]);
    return (await this.redis.eval(RECORD_PLANNED, 2, this.key(runId, 'planned'), this.key(runId, 'stats'), ...args)) as number;
  }

  /** Records a slice's outcome once; returns false when it had been recorded already. */
  async recordOutcome(runId: string, outcome: SliceOutcome): Promise<boolean> {
    const field = (name: string) => `${outcome.brandId}|${outcome.stream}|${name}`;
    const args: Array<string | number> = [outcome.sliceId, field('done'), 1];
    if (outcome.status === 'failed') args.push(field('failed'), 1);
    if (outcome.status === 'incomplete') args.push(field('incomplete'), 1);
    for (const name of ['rows', 'rejects', 'requests', 'retries', 'rateLimited'] as const) {
      if (outcome[name]) args.push(field(name), outcome[name]);
    }
    return (await this.redis.eval(RECORD_OUTCOME, 2, this.key(runId, 'done'), this.key(runId, 'stats'), ...args)) === 1;
  }

  /** Whether a slice's outcome is recorded (its commit ran to the end once). */
  async isDone(runId: string, sliceId: string): Promise<boolean> {
    return (await this.redis.sismember(this.key(runId, 'done'), sliceId)) === 1;
  }

  /** Planned and finished slice counts of the run (all phases planned so far). */
  async progress(runId: string): Promise<{ planned: number; done: number }> {
    const [planned, done] = await Promise.all([this.redis.scard(this.key(runId, 'planned')), this.redis.scard(this.key(runId, 'done'))]);
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
      const counters = result.get(group) ?? emptyCounters();
      counters[name] = Number(value);
      result.set(group, counters);
    }
    return result;
  }
}

/** The counters of every brand and stream of a run, added up. */
export function totalCounters(counters: Iterable<StreamCounters>): StreamCounters {
  const total = emptyCounters();
  for (const each of counters) for (const name of COUNTER_NAMES) total[name] += each[name];
  return total;
}

export function emptyCounters(): StreamCounters {
  return { planned: 0, done: 0, failed: 0, incomplete: 0, rows: 0, rejects: 0, requests: 0, retries: 0, rateLimited: 0 };
}
