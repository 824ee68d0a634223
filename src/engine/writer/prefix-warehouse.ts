import { existsSync } from 'node:fs';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import type { Redis } from 'ioredis';
import { redisKeys } from '../../redis-keys.js';
import { workingPathFor } from '../../warehouse/paths.js';
import { warehouseIdOfFile } from '../../warehouse/state/warehouse-id.js';
import { writerLeaseKey, type Queues } from '../jobs/queues.js';
import { fileOfLease } from './writer-lease.js';
import { removeQueuedJobsOfRun } from '../run/cancel-run.js';
import { RunStore } from '../run/run-store.js';

/**
 * A command for one warehouse met the writer of another under the same Redis prefix: its runs would load into the other
 * file, so every warehouse needs a prefix of its own (docs/configuration.md, `redisPrefix`).
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
 * Throws OtherWarehouseError when the prefix's lease holder or an unfinished run writes a file other than `db`: the next
 * writer of any file would load it. With `load` (this process may load), also checks refuseOtherWorkingFile.
 */
export async function refuseOtherWarehouse(
  redis: Redis,
  prefix: string,
  db: string,
  options: { load?: boolean } = {},
): Promise<void> {
  const ours = writtenFile(db);
  // Asked at once; the lease's answer is the one reported when both refuse.
  const [lease, unfinished, recorded] = await Promise.all([
    redis.get(writerLeaseKey(prefix)),
    new RunStore(redis, prefix).unfinished(),
    options.load ? prefixWarehouse(redis, prefix) : undefined,
  ]);
  const theirs = fileOfLease(lease);
  if (theirs !== undefined && theirs !== ours) throw new OtherWarehouseError(prefix, ours, theirs);
  const other = unfinished.find((run) => run.db !== undefined && run.db !== ours);
  if (other) throw new OtherWarehouseError(prefix, ours, other.db!, other.runId);
  // A live writer loads the run (an older one's lease names no file); this host may lack the volume.
  if (recorded && lease === null) await refuseOtherWorkingFile(prefix, db, recorded);
}

/**
 * What a prefix records of its warehouse: the id of the working file its committed slices are in, and which file on
 * which host recorded it first, when (for messages: the id alone decides).
 */
export interface PrefixWarehouse {
  id: string;
  db: string;
  host: string;
  since: string;
}

/** The working file a writer opened: its id (src/warehouse/state/warehouse-id.ts) and its path. */
export interface OpenedWarehouse {
  id: string;
  path: string;
}

/** The command that makes the file at BVSYNC_DB the prefix's warehouse on purpose (src/cli/adopt-warehouse.ts). */
export const ADOPT_COMMAND = 'bvsync adopt-warehouse';

/**
 * A writer opened a working file other than the one the prefix's committed slices are in (another disk, a file made
 * again): published, it would hold only the slices committed since (test/e2e/warehouse-identity.int.test.ts).
 */
export class OtherWarehouseFileError extends Error {
  readonly code = 'other_warehouse_file';
  /** `file.id` absent: no file at the path yet. `beforeRun`: refused by refuseOtherWorkingFile, so nothing started. */
  constructor(prefix: string, file: { path: string; id?: string }, recorded: PrefixWarehouse, beforeRun = false) {
    const what =
      recorded.db !== file.path
        ? `This is another ${file.id === undefined ? 'path' : 'file'} than the prefix's warehouse (a warehouse moved here keeps its id: copy its file, do not start a new one).`
        : file.id === undefined
          ? `This process sees other storage at the same path (another host's disk or volume), or the file was deleted.`
          : `This process sees other storage at the same path (another host's disk or volume), or the file was replaced (deleted, a new empty file).`;
    const outcome = beforeRun
      ? 'Nothing was started: a run here would load into this file.'
      : "It loads and publishes nothing, and the prefix's unfinished runs end failed.";
    super(
      `the working file ${file.path} ${file.id === undefined ? 'does not exist' : `is warehouse ${file.id}`}, but the Redis ` +
        `prefix "${prefix}" keeps its committed slices in warehouse ${recorded.id} (${recorded.db} on host ${recorded.host}, ` +
        `since ${recorded.since}). ${what} ${outcome} Give every writer of the prefix the same shared storage (or, on ` +
        `hosts without it, run \`bvsync worker --fetch-only\`${beforeRun ? ', or this command with --enqueue-only' : ''} beside ` +
        `a worker where the file is), or give this file a Redis prefix of its own (config ` +
        `"redisPrefix", or BVSYNC_REDIS_PREFIX). To make this file the prefix's warehouse on purpose: ${ADOPT_COMMAND}`,
    );
    this.name = 'OtherWarehouseFileError';
  }
}

/**
 * Throws OtherWarehouseFileError before a run is recorded, with no writer live, when `db`'s working file holds another
 * id than the prefix records, or none (a writer would make one): test/e2e/warehouse-identity.int.test.ts.
 */
async function refuseOtherWorkingFile(prefix: string, db: string, recorded: PrefixWarehouse): Promise<void> {
  const path = resolve(workingPathFor(db));
  if (!existsSync(path)) throw new OtherWarehouseFileError(prefix, { path }, recorded, true);
  // Unreadable (its writer holds DuckDB's lock, most often): the writer's check on opening it is the backstop.
  const id = await warehouseIdOfFile(path).catch(() => undefined);
  if (id !== undefined && id !== recorded.id) throw new OtherWarehouseFileError(prefix, { id, path }, recorded, true);
}

function parseRecorded(text: string | null): PrefixWarehouse | undefined {
  if (!text) return undefined;
  try {
    const value = JSON.parse(text) as Partial<PrefixWarehouse>;
    if (typeof value.id === 'string')
      return {
        id: value.id,
        db: String(value.db ?? '?'),
        host: String(value.host ?? '?'),
        since: String(value.since ?? '?'),
      };
  } catch {
    // Not written by bvsync: shown as it is, and never equal to a file's id.
  }
  return { id: text, db: '?', host: '?', since: '?' };
}

function recordOf(file: OpenedWarehouse): string {
  const record: PrefixWarehouse = { id: file.id, db: file.path, host: hostname(), since: new Date().toISOString() };
  return JSON.stringify(record);
}

/** The warehouse the prefix records, or undefined before its first writer (or after Redis lost its data). */
export async function prefixWarehouse(redis: Redis, prefix: string): Promise<PrefixWarehouse | undefined> {
  return parseRecorded(await redis.get(redisKeys(prefix).warehouse));
}

// Recorded by the first writer only, in one step, so two first writers of two files cannot both be recorded. The same
// warehouse at another path (moved, docs/operations.md) is recorded there, for the messages; ARGV[2] is its id.
const CLAIM = `
if redis.call('set', KEYS[1], ARGV[1], 'NX') then return ARGV[1] end
local current = redis.call('get', KEYS[1])
local ok, recorded = pcall(cjson.decode, current)
if ok and type(recorded) == 'table' and recorded.id == ARGV[2] and recorded.db ~= ARGV[3] then
  redis.call('set', KEYS[1], ARGV[1])
  return ARGV[1]
end
return current`;

/**
 * Records `file` as the prefix's warehouse when the prefix records none, and throws OtherWarehouseFileError when it
 * records another file's id. A writer calls it on opening the file and before each publish.
 */
export async function claimPrefixWarehouse(
  redis: Redis,
  prefix: string,
  file: OpenedWarehouse,
): Promise<PrefixWarehouse> {
  const recorded = parseRecorded(
    (await redis.eval(CLAIM, 1, redisKeys(prefix).warehouse, recordOf(file), file.id, file.path)) as string | null,
  )!;
  if (recorded.id !== file.id) throw new OtherWarehouseFileError(prefix, file, recorded);
  return recorded;
}

/** Makes `file` the prefix's warehouse whatever it recorded (`bvsync adopt-warehouse`); returns what it recorded before. */
export async function adoptPrefixWarehouse(
  redis: Redis,
  prefix: string,
  file: OpenedWarehouse,
): Promise<PrefixWarehouse | undefined> {
  return parseRecorded((await redis.set(redisKeys(prefix).warehouse, recordOf(file), 'GET')) as string | null);
}

/**
 * Ends failed the prefix's unfinished runs started for `db`, whose writer refused its file, and removes their queued
 * jobs, so nothing is fetched for nothing and no command waits forever. Returns the runs it ended.
 */
export async function failRunsOfRefusedFile(
  redis: Redis,
  prefix: string,
  queues: Queues,
  db: string,
  error: OtherWarehouseFileError,
): Promise<string[]> {
  const runs = new RunStore(redis, prefix);
  const ours = writtenFile(db);
  const ended: string[] = [];
  for (const run of await runs.unfinished()) {
    if (run.db !== undefined && run.db !== ours) continue;
    const after = await runs.update(run.runId, {
      status: 'failed',
      error: error.message,
      finishedAt: new Date().toISOString(),
    });
    if (after.error !== error.message) continue;
    ended.push(run.runId);
    await removeQueuedJobsOfRun(queues, redis, prefix, run.runId);
  }
  return ended;
}
