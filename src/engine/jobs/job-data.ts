import { UnrecoverableError } from 'bullmq';
import { z } from 'zod';
import { SLICE_STATUSES } from '../../vocabulary.js';

/**
 * Job payloads, validated at the start of every processor: jobs outlive code changes and sit in a shared Redis,
 * so their data is treated as unknown until parsed.
 */

const sliceParam = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string()), z.array(z.number())]);

const slicePlanSchema = z.object({
  key: z.string().min(1),
  day: z.string().nullable(),
  from: z.string().nullable(),
  to: z.string().nullable(),
  params: z.record(z.string(), sliceParam),
});

const sliceRef = {
  runId: z.string().min(1),
  brandId: z.number().int().positive(),
  stream: z.string().min(1),
  sliceId: z.string().min(1),
  slice: slicePlanSchema,
};

/** The API calls of a fetch job's earlier attempts (failed, or paused by a 429), so the slice's counters include them. */
const carriedTallySchema = z.object({
  requests: z.number().int().min(0),
  retries: z.number().int().min(0),
  rateLimited: z.number().int().min(0),
});

export const fetchJobSchema = z.object({
  ...sliceRef,
  refetch: z.number().int().min(0).default(0),
  carried: carriedTallySchema.optional(),
});
export type FetchJobData = z.infer<typeof fetchJobSchema>;

/** The fields that name a slice in every log line about it; test/ops/slice-logs.int.test.ts reads them. */
export function sliceLogFields(data: FetchJobData): { run: string; brand: number; stream: string; slice: string } {
  return { run: data.runId, brand: data.brandId, stream: data.stream, slice: data.slice.key };
}

// No upper bound: a stream that needs what a phase-2 stream provides is planned in phase 3 (plan.ts, phaseOf).
export const planJobSchema = z.object({ runId: z.string().min(1), phase: z.number().int().min(1) });
export type PlanJobData = z.infer<typeof planJobSchema>;

export const commitJobSchema = z.object({
  ...sliceRef,
  refetch: z.number().int().min(0),
  /** Where the slice's chunks wait in Redis, and how many there are. */
  token: z.string().min(1),
  chunks: z.number().int().min(0),
  status: z.enum(SLICE_STATUSES),
  /** Distinct records read (compared with total_rows), and rows they became in all tables. */
  records: z.number().int().min(0),
  rows: z.number().int().min(0),
  rejects: z.number().int().min(0),
  totalRows: z.number().int().nullable(),
  attempts: z.number().int().min(1),
  ...carriedTallySchema.shape,
  error: z.string().nullable(),
  errorCode: z.string().nullable(),
  requestId: z.string().nullable(),
  /** The query the answer says was applied (`info.query`), for `_slice_queries`; absent when it echoes none. */
  query: z.record(z.string(), z.unknown()).optional(),
  /** The engines filter the read sent, for `_slice_queries` when the answer echoes no query. */
  sentEngines: z.array(z.string()).optional(),
  /** How the read went on the wire (src/api/read-settings.ts), for `_sync_state.read_with`. */
  readWith: z.string().optional(),
});
export type CommitJobData = z.infer<typeof commitJobSchema>;

/** The jobs of a whole run, which carry its id alone: `finalize`, `heal` and `cancel` (enqueue.ts). */
export const runJobSchema = z.object({ runId: z.string().min(1) });
export type RunJobData = z.infer<typeof runJobSchema>;

/**
 * API calls of a run no commit job carries to `_sync_runs` (after `bvsync cancel`); `source` says which, and the id.
 * A removed commit's calls count only if its slice was not committed in another's transaction (waiting-commits.ts).
 */
export const uncountedJobSchema = z.object({
  runId: z.string().min(1),
  source: z.string().min(1),
  ...carriedTallySchema.shape,
  commits: z.array(z.object({ sliceId: z.string().min(1), ...carriedTallySchema.shape })).default([]),
});
export type UncountedJobData = z.infer<typeof uncountedJobSchema>;

/**
 * A job whose data this version cannot read (left by an older version, or written by hand). It is an
 * `UnrecoverableError`, so BullMQ fails the job at once: the same data would fail every one of its attempts.
 */
export class UnreadableJobError extends UnrecoverableError {
  readonly code = 'unreadable_job';
  constructor(job: { id?: string; name: string }, issues: string) {
    super(
      `job ${job.name} ${job.id ?? ''} has data this version cannot read: ${issues}; start the run again with this version`,
    );
    this.name = 'UnreadableJobError';
  }
}

/** Parses a job's data, naming the job and each field that does not fit when it cannot be read. */
export function parseJobData<T>(schema: z.ZodType<T>, data: unknown, job: { id?: string; name: string }): T {
  const result = schema.safeParse(data);
  if (!result.success) {
    throw new UnreadableJobError(
      job,
      result.error.issues.map((issue) => `${issue.path.join('.') || '(data)'}: ${issue.message}`).join('; '),
    );
  }
  return result.data;
}
