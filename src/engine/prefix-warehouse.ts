import { resolve } from 'node:path';
import type { Redis } from 'ioredis';
import { writerLeaseKey } from './queues.js';
import { leaseHolderWrites } from './writer-lease.js';
import { RunStore } from './run-store.js';

/**
 * A command for one warehouse met the writer of another under the same Redis prefix. Left to go on, its runs would be
 * loaded into the other file (the writer loads whatever the prefix's queues hold) and `status` would mix both files'
 * runs: every warehouse needs a prefix of its own (docs/configuration.md, `redisPrefix`).
 */
export class OtherWarehouseError extends Error {
  readonly code = 'other_warehouse';
  constructor(prefix: string, ours: string, theirs: string, unfinishedRun?: string) {
    super(
      unfinishedRun === undefined
        ? `the writer working under the Redis prefix "${prefix}" writes ${theirs}, not ${ours}: a run started here would be ` +
            `loaded into that file. Give this warehouse a prefix of its own (config "redisPrefix", or BVSYNC_REDIS_PREFIX), ` +
            `or stop the process writing ${theirs} first`
        : `the unfinished run ${unfinishedRun} under the Redis prefix "${prefix}" was started for ${theirs}, not ${ours}: a writer ` +
            `here would load its slices into this file. Give this warehouse a prefix of its own (config "redisPrefix", or ` +
            `BVSYNC_REDIS_PREFIX), finish that run with BVSYNC_DB=${theirs}, or drop it: bvsync cancel ${unfinishedRun}`,
    );
    this.name = 'OtherWarehouseError';
  }
}

/** The file a writer of `db` names in its lease, and a command of `db` compares with the lease's: its absolute path. */
export function writtenFile(db: string): string {
  return resolve(db);
}

/**
 * Throws OtherWarehouseError when the writer holding the prefix's lease writes a file other than `db`, or when an
 * unfinished run under the prefix was started for another file: with no writer live, the next writer of any file had
 * loaded it (a backfill of one file, stopped with Ctrl-C, finished into another and was reported complete in neither).
 */
export async function refuseOtherWarehouse(redis: Redis, prefix: string, db: string): Promise<void> {
  const ours = writtenFile(db);
  const theirs = await leaseHolderWrites(redis, writerLeaseKey(prefix));
  if (theirs !== undefined && theirs !== ours) throw new OtherWarehouseError(prefix, ours, theirs);
  const other = (await new RunStore(redis, prefix).unfinished()).find((run) => run.db !== undefined && run.db !== ours);
  if (other) throw new OtherWarehouseError(prefix, ours, other.db!, other.runId);
}
