import { setTimeout as sleep } from 'node:timers/promises';
import { isLockConflict } from './database-locked-error.js';
import { parseDuckDbSize } from './duckdb-budget.js';

/** What node, its code and bvsync's own structures hold beside DuckDB's budget in a writer (docs/operations.md). */
export const BESIDE_DUCKDB_BYTES = 160 * 2 ** 20;

/**
 * Reopening must free at least this much to be worth doing again: when node's own heap keeps the process above the
 * threshold, the writer does not reopen DuckDB after every commit.
 */
export const MIN_RELEASE_BYTES = 64 * 2 ** 20;

/** The resident memory above which the writer reopens DuckDB: `reopenAboveMb`, or DuckDB's budget plus what is beside it. */
export function reopenThresholdBytes(warehouse: { memoryLimit: string; reopenAboveMb?: number | undefined }): number {
  if (warehouse.reopenAboveMb !== undefined) return warehouse.reopenAboveMb * 2 ** 20;
  return parseDuckDbSize(warehouse.memoryLimit) + BESIDE_DUCKDB_BYTES;
}

/**
 * When the writer reopens DuckDB to hand back cached blocks and free memory (returned only on close): resident memory
 * past the threshold and MIN_RELEASE_BYTES above the last reopen's. test/warehouse/memory-release.int.test.ts.
 */
export class ReopenTrigger {
  private floor = 0;

  /** `thresholdBytes` 0 never reopens. */
  constructor(
    private readonly thresholdBytes: number,
    private readonly minReleaseBytes = MIN_RELEASE_BYTES,
  ) {}

  due(residentBytes: number): boolean {
    if (this.thresholdBytes <= 0) return false;
    return residentBytes > this.thresholdBytes && residentBytes > this.floor + this.minReleaseBytes;
  }

  /** Where the reopen left the resident memory. */
  reopened(residentBytes: number): void {
    this.floor = residentBytes;
  }
}

/** How long a reopen waits for a process that took the file's lock while it was closed (a `--working` read). */
const REOPEN_LOCK_WAIT_MS = 30_000;

/**
 * `open` again while another process holds the file's lock (`bvsync sql --working` between a reopen's close and
 * open), up to `waitMs`; any other error, or the last, is thrown. test/warehouse/memory-release.test.ts.
 */
export async function openWaitingForLock<T>(open: () => Promise<T>, waitMs = REOPEN_LOCK_WAIT_MS): Promise<T> {
  const started = performance.now();
  for (let delay = 25; ; delay = Math.min(delay * 2, 1_000)) {
    try {
      return await open();
    } catch (error) {
      if (!isLockConflict(error) || performance.now() - started + delay > waitMs) throw error;
      await sleep(delay);
    }
  }
}
