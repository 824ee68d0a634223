import type { Job } from 'bullmq';
import type { Logger } from '../../log.js';

/**
 * A run whose record is gone from Redis (expired, or Redis restarted empty) never comes back, so no job, counter or
 * chunk of it is written: writes check in the same script or right after (test/reliability/redis-residue.int.test.ts).
 */
export class RunGoneError extends Error {
  readonly code = 'run_gone';
  constructor(readonly runId: string) {
    super(
      `run ${runId} is no longer in Redis (expired, or Redis lost its data): nothing more of it is written; run the same command again`,
    );
    this.name = 'RunGoneError';
  }
}

/** Told by name too: an error from a fetch thread comes back as a plain Error with the same name. */
export function isRunGone(error: unknown): boolean {
  return error instanceof RunGoneError || (error instanceof Error && error.name === 'RunGoneError');
}

/** A fetch or load job of a run gone from Redis ends without an error and is removed, so no command lists it failed. */
export function dropJobOfGoneRun(log: Logger, job: Job, error: Error): void {
  log.warn(
    { job: job.name, id: job.id, err: error.message },
    'a job of a run gone from Redis is dropped: nothing more of the run is written',
  );
  job.opts.removeOnComplete = true;
}
