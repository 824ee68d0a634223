import type { RejectedRecord, SliceBatch, TableWrite } from '../../warehouse/load/slice-batch.js';
import type { Warehouse } from '../../warehouse/warehouse.js';

/** The problem code of a slice whose records another slice's rows hold the keys of. */
const KEY_HELD_ELSEWHERE = 'key_held_elsewhere';

/** DuckDB's words for an insert that met a key already there. */
export function isKeyConflict(error: unknown): boolean {
  return error instanceof Error && /Duplicate key .* violates primary key constraint/.test(error.message);
}

/**
 * The batch with rows whose keys a row outside their replace's scope holds set aside as rejects (a record moved to
 * another day), so the slice loads `incomplete`, naming key and holder, not failing every attempt; else `undefined`.
 */
export async function withMovedRecordsSetAside(
  warehouse: Warehouse,
  batch: SliceBatch,
): Promise<{ batch: SliceBatch; setAside: number } | undefined> {
  const rejects: RejectedRecord[] = [];
  const source = `load of ${batch.stream} brand ${batch.brandId} slice ${batch.sliceKey}`;
  const writes: TableWrite[] = [];
  for (const write of batch.writes) {
    const replaces = write.mode === 'replace' && write.rows.length > 0;
    const held = replaces ? await warehouse.keysHeldElsewhere(write, batch.brandId) : [];
    if (held.length === 0) {
      writes.push(write);
      continue;
    }
    const moved = new Set(held.map((each) => each.index));
    for (const each of held) {
      rejects.push({
        raw: { table: write.table, row: write.rows[each.index] },
        issues: [
          `${write.table}: key (${each.key}) is held by the row of another slice (${each.heldBy}); it stays there until that slice is read again`,
        ],
        source,
      });
    }
    writes.push({ ...write, rows: write.rows.filter((_, index) => !moved.has(index)) });
  }
  if (rejects.length === 0) return undefined;
  const problem = `${rejects[0]!.issues[0]}${rejects.length > 1 ? ` (and ${rejects.length - 1} more rows like it)` : ''}`;
  const state = batch.state;
  return {
    batch: {
      ...batch,
      writes,
      rejects: [...batch.rejects, ...rejects],
      state: {
        ...state,
        status: state.status === 'complete' ? 'incomplete' : state.status,
        lastError: state.lastError ? `${state.lastError}; ${problem}` : problem,
        errorCode: state.errorCode ?? KEY_HELD_ELSEWHERE,
      },
    },
    setAside: rejects.length,
  };
}
