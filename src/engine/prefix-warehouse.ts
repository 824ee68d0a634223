import { resolve } from 'node:path';
import type { Redis } from 'ioredis';
import { writerLeaseKey } from './queues.js';
import { leaseHolderWrites } from './writer-lease.js';

/**
 * A command for one warehouse met the writer of another under the same Redis prefix. Left to go on, its runs would be
 * loaded into the other file (the writer loads whatever the prefix's queues hold) and `status` would mix both files'
 * runs: every warehouse needs a prefix of its own (docs/configuration.md, `redisPrefix`).
 */
export class OtherWarehouseError extends Error {
  readonly code = 'other_warehouse';
  constructor(prefix: string, ours: string, theirs: string) {
    super(
      `the writer working under the Redis prefix "${prefix}" writes ${theirs}, not ${ours}: a run started here would be ` +
        `loaded into that file. Give this warehouse a prefix of its own (config "redisPrefix", or BVSYNC_REDIS_PREFIX), ` +
        `or stop the process writing ${theirs} first`,
    );
    this.name = 'OtherWarehouseError';
  }
}

/** The file a writer of `db` names in its lease, and a command of `db` compares with the lease's: its absolute path. */
export function writtenFile(db: string): string {
  return resolve(db);
}

/** Throws OtherWarehouseError when the writer holding the prefix's lease writes a file other than `db`. */
export async function refuseOtherWarehouse(redis: Redis, prefix: string, db: string): Promise<void> {
  const ours = writtenFile(db);
  const theirs = await leaseHolderWrites(redis, writerLeaseKey(prefix));
  if (theirs !== undefined && theirs !== ours) throw new OtherWarehouseError(prefix, ours, theirs);
}
