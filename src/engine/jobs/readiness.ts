import type { Redis } from 'ioredis';
import type { Warehouse } from '../../warehouse/warehouse.js';
import { within } from '../../within.js';

/** One check of readiness: whether it passes, and what it found in words. */
export interface ReadinessCheck {
  ok: boolean;
  detail: string;
}

/** What `GET /readyz` answers: ready when every check passes. */
export interface Readiness {
  ready: boolean;
  checks: Record<string, ReadinessCheck>;
}

/** What a worker host shows of itself to be checked. */
export interface ReadinessSubject {
  /** The host's Redis connection; undefined before it starts. */
  redis: Redis | undefined;
  /** Whether the host takes part in the writer lease (not `--fetch-only`). */
  mayWrite: boolean;
  holdsLease: boolean;
  /** Its working database while it holds the lease. */
  warehouse: Warehouse | undefined;
  /** Why it cannot become the writer, once retrying will not help (a file that is no database, a folder it cannot make). */
  writerProblem: Error | undefined;
  /** Whether it is stopping (SIGTERM): not ready, so no new traffic or rollout waits on it. */
  stopping: boolean;
}

/** How long a check, or a scrape's read of Redis, may take; a probe's own timeout (ours 5 s) must be longer. */
export const PROBE_LIMIT_MS = 2_000;

/**
 * Ready when Redis answers a PING and, for the lease holder, the lease is held and the database answers or is busy.
 * Not ready while the process cannot become the writer for a reason retries won't mend (test/ops/health.int.test.ts).
 */
export async function checkReadiness(subject: ReadinessSubject): Promise<Readiness> {
  const checks: Record<string, ReadinessCheck> = {
    process: subject.stopping ? fails('stopping') : passes('running'),
    redis: await redisAnswers(subject.redis),
    writer: await writerCheck(subject),
  };
  return { ready: Object.values(checks).every((check) => check.ok), checks };
}

const passes = (detail: string): ReadinessCheck => ({ ok: true, detail });
const fails = (detail: string): ReadinessCheck => ({ ok: false, detail });

async function redisAnswers(redis: Redis | undefined): Promise<ReadinessCheck> {
  if (!redis) return fails('not connected yet');
  // Not queued while disconnected: a PING would wait in ioredis' offline queue for the reconnect, one per probe.
  if (redis.status !== 'ready') return fails(`not connected (${redis.status})`);
  const answer = await within(redis.ping(), PROBE_LIMIT_MS);
  if (answer.timedOut) return fails(`no answer to PING in ${PROBE_LIMIT_MS} ms`);
  return answer.error ? fails(`PING failed: ${answer.error.message}`) : passes('answers PING');
}

async function writerCheck(subject: ReadinessSubject): Promise<ReadinessCheck> {
  if (!subject.mayWrite) return passes('fetch-only');
  if (subject.writerProblem) return fails(`cannot write: ${subject.writerProblem.message}`);
  if (!subject.holdsLease || !subject.warehouse)
    return passes('not holding the lease (another process writes, or this one will)');
  const answer = await within(subject.warehouse.schemaVersion(), PROBE_LIMIT_MS);
  // Queries on the working database run one at a time: a commit under way holds this one back, and is the database at work.
  if (answer.timedOut) return passes('holding the lease; the database is busy with a job');
  return answer.error
    ? fails(`holding the lease; the database does not answer: ${answer.error.message}`)
    : passes('holding the lease; the database answers');
}
