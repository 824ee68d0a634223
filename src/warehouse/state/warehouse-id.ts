import { existsSync } from 'node:fs';
import { withReadOnly } from '../publish/published-database.js';
import { rowReader, type RowReader } from '../read-rows.js';

/**
 * The id a working file was made with (migration 016), copied into every published copy: it tells one file from
 * another at the same path (src/engine/writer/prefix-warehouse.ts).
 */
const WAREHOUSE_TABLE = '_warehouse';

/** The file's id, or undefined when it has none (a published copy made before migration 016). */
export async function warehouseIdOf(read: RowReader): Promise<string | undefined> {
  const tables = await read(
    `SELECT 1 FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = '${WAREHOUSE_TABLE}'`,
  );
  if (!tables.length) return undefined;
  const [row] = await read(`SELECT id FROM main.${WAREHOUSE_TABLE} ORDER BY created_at LIMIT 1`);
  return row ? String(row.id) : undefined;
}

/**
 * The id of the DuckDB file at `path`, opened read-only so nothing is created or changed; undefined when there is no
 * file or it has none. Throws when it cannot be opened, e.g. another process holds it for writing.
 */
export async function warehouseIdOfFile(path: string): Promise<string | undefined> {
  if (!existsSync(path)) return undefined;
  return withReadOnly(path, (database) => warehouseIdOf(rowReader(database.connection)));
}
