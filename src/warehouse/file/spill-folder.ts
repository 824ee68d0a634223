import { readdirSync, unlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * Removes the files a dead process left in DuckDB's spill folder (`<file>.tmp`), cleaned by DuckDB only on close:
 * those this instance does not list as its own, never the folder (test/warehouse/spill-folder.int.test.ts).
 */
export async function removeDeadSpillFiles(connection: DuckDBConnection, databasePath: string): Promise<void> {
  const folder = `${databasePath}.tmp`;
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return;
  }
  const reader = await connection.runAndReadAll('SELECT path FROM duckdb_temporary_files()');
  const own = new Set(reader.getRowObjects().map((row) => resolve(String(row.path))));
  for (const name of names) {
    const path = join(folder, name);
    if (!/^duckdb_temp/.test(name) || own.has(resolve(path))) continue;
    try {
      unlinkSync(path);
    } catch {
      // Not ours to explain: the file stays.
    }
  }
}
