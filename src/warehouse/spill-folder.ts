import { readdirSync, rmdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Removes what a dead process left in DuckDB's spill folder of a database (`<file>.tmp`, where DuckDB writes what
 * does not fit in `memory_limit`): DuckDB removes its spill files when it closes, not when it is killed, and never
 * the folder. Called with the database open for writing, so no live process spills there; only DuckDB's own files
 * are removed, and the folder only once empty. A `kill -9` mid-load had left the folder, and any spilled gigabytes,
 * beside the working file for good.
 */
export function removeDeadSpillFolder(databasePath: string): void {
  const folder = `${databasePath}.tmp`;
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  for (const name of names) {
    if (/^duckdb_temp/.test(name)) {
      try {
        unlinkSync(join(folder, name));
      } catch {
        // Not ours to explain: the folder stays, as before.
      }
    }
  }
  try {
    rmdirSync(folder);
  } catch {
    // Not empty (someone else's files) or not removable: left as it is.
  }
}
