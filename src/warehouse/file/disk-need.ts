import { existsSync, statSync } from 'node:fs';
import { formatBytes } from '../../format.js';
import { withReadOnly } from '../publish/published-database.js';
import { readRows } from '../read-rows.js';
import { parseDuckDbSize } from './duckdb-budget.js';
import { workingPathFor } from '../paths.js';
import { volumeSpace, type VolumeSpace } from './volume-space.js';

/** Room for DuckDB's write-ahead log: its `checkpoint_threshold` (16 MiB by default), past which a commit checkpoints. */
export const WAL_ALLOWANCE_BYTES = 16 * 1024 * 1024;

export interface DiskNeedInput {
  /** The working file and its write-ahead log, else the published file; 0 for a new warehouse. */
  warehouseBytes: number;
  /** Days the next run reads. */
  windowDays: number;
  /** Days the warehouse holds slices of; undefined when not known (the run is then counted as large as the file). */
  heldDays: number | undefined;
  /** DuckDB's `memory_limit` in bytes: what one statement may spill at most once memory is full. */
  memoryLimitBytes: number;
}

export interface DiskNeed {
  /** Free bytes the next run may need at its peak. */
  needBytes: number;
  /** Bytes the run may add to the warehouse: its share of the file, by days. */
  growthBytes: number;
}

/**
 * The free space a run may need on the warehouse's volume (docs/operations.md, "Disk space"): `W + 2G + WAL + M`, with
 * `W` the warehouse's size, `G` what the run adds, `WAL` 16 MiB and `M` the memory limit (spill).
 */
export function estimateDiskNeed(input: DiskNeedInput): DiskNeed {
  const share = input.heldDays && input.heldDays > 0 ? Math.min(1, input.windowDays / input.heldDays) : 1;
  const growthBytes = Math.ceil(input.warehouseBytes * share);
  return {
    needBytes: input.warehouseBytes + 2 * growthBytes + WAL_ALLOWANCE_BYTES + input.memoryLimitBytes,
    growthBytes,
  };
}

export interface DiskRoom extends DiskNeed {
  space: VolumeSpace;
  warehouseBytes: number;
  /** Free space is below the need. */
  short: boolean;
  /** One line that says both, and what to do when short. */
  line: string;
}

/**
 * Measures the warehouse of the published path `db` and its volume against the estimate for a run of `windowDays`;
 * undefined when the volume cannot be measured. Reads the published file (read-only) for the days it holds.
 */
export async function measureDiskRoom(
  db: string,
  windowDays: number,
  memoryLimit: string,
): Promise<DiskRoom | undefined> {
  const space = volumeSpace(db);
  if (!space) return undefined;
  const working = workingPathFor(db);
  const warehouseBytes = existsSync(working) ? sizeOf(working) + sizeOf(`${working}.wal`) : sizeOf(db);
  const need = estimateDiskNeed({
    warehouseBytes,
    windowDays,
    heldDays: await heldDays(db),
    memoryLimitBytes: parseDuckDbSize(memoryLimit),
  });
  const short = space.freeBytes < need.needBytes;
  const estimate =
    `the next run (${windowDays} day${windowDays === 1 ? '' : 's'}) may need ${formatBytes(need.needBytes)}: a whole copy to publish, ` +
    `${formatBytes(need.growthBytes)} of new rows, the write-ahead log and the spill`;
  const line = short
    ? `${formatBytes(space.freeBytes)} free on ${space.folder}, below what ${estimate}. A full disk stops the run; free space there, or move the warehouse and point BVSYNC_DB (config "db") at it (docs/operations.md, "Disk space")`
    : `${formatBytes(space.freeBytes)} free on ${space.folder}; ${estimate}`;
  return { ...need, space, warehouseBytes, short, line };
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** Days the published file holds slices of; undefined without a readable one. */
async function heldDays(db: string): Promise<number | undefined> {
  if (!existsSync(db)) return undefined;
  try {
    const [row] = await withReadOnly(db, (database) =>
      readRows(
        database.connection,
        'SELECT count(DISTINCT day)::INTEGER AS days FROM _sync_state WHERE day IS NOT NULL',
      ),
    );
    return Number(row?.days ?? 0) || undefined;
  } catch {
    return undefined;
  }
}
