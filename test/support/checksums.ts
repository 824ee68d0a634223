import { DuckDBInstance } from '@duckdb/node-api';
import { readRows } from '../../src/warehouse/read-rows.js';

/**
 * The reliability yardstick: one checksum per table over its business columns, so two warehouses can be compared
 * (and the chaos table can print what it compared) without holding both row sets. Bookkeeping tables (`_sync_state`,
 * `_sync_runs`, `_rejected_records`, ...) are left out, and so are the columns that say when and by which run a row
 * was written: a disturbed run and a clean one differ there by design.
 */

/** Columns that name the run, not the data. */
export const RUN_COLUMNS = ['_synced_at', '_run_id'];

/** Columns of a view that say when a run saw something: the same data loaded by two runs differs there alone. */
export const RUN_TIME_COLUMNS = ['v_schema_drift.first_seen', 'v_schema_drift.last_seen'];

export interface TableChecksum {
  rows: number;
  /** Sum of the hash of every row's business columns, as text (a HUGEINT); order-independent. */
  sum: string;
}

export interface ChecksumOptions {
  /** More columns to leave out, as `table.column`; default none. */
  ignore?: string[];
}

/** Checksums of every data table of a closed DuckDB file (opened read-only), by table name. */
export async function tableChecksums(path: string, options: ChecksumOptions = {}): Promise<Map<string, TableChecksum>> {
  const ignore = [...RUN_TIME_COLUMNS, ...(options.ignore ?? [])];
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run(`ATTACH '${path.replace(/'/g, "''")}' AS w (READ_ONLY)`);
    const tables = await readRows(
      connection,
      `SELECT table_name, list(column_name ORDER BY column_index) AS columns FROM duckdb_columns()
       WHERE database_name = 'w' AND schema_name = 'main' AND NOT starts_with(table_name, '_') GROUP BY table_name ORDER BY table_name`,
    );
    const result = new Map<string, TableChecksum>();
    for (const row of tables) {
      const table = String(row.table_name);
      const columns = (row.columns as string[])
        .filter((column) => !RUN_COLUMNS.includes(column) && !ignore.includes(`${table}.${column}`))
        .map((column) => `"${column.replace(/"/g, '""')}"`);
      // hash() of a struct of the columns hashes the whole row; summing makes the checksum independent of row order.
      const [sums] = await readRows(
        connection,
        `SELECT count(*)::BIGINT AS n, coalesce(sum(hash(struct_pack(${columns.map((c) => `${c} := ${c}`).join(', ')})))::HUGEINT, 0)::VARCHAR AS s FROM w.main."${table.replace(/"/g, '""')}"`,
      );
      result.set(table, { rows: Number(sums!.n), sum: String(sums!.s) });
    }
    return result;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** One table whose checksum differs between two warehouses. */
export interface ChecksumDifference {
  table: string;
  expected: TableChecksum | null;
  actual: TableChecksum | null;
}

/** The tables whose checksums differ (or that only one side has); empty when the warehouses hold the same data. */
export function checksumDifferences(
  expected: Map<string, TableChecksum>,
  actual: Map<string, TableChecksum>,
): ChecksumDifference[] {
  const tables = [...new Set([...expected.keys(), ...actual.keys()])].sort();
  return tables
    .map((table) => ({ table, expected: expected.get(table) ?? null, actual: actual.get(table) ?? null }))
    .filter(({ expected: a, actual: b }) => a?.rows !== b?.rows || a?.sum !== b?.sum);
}

/** Compares two closed DuckDB files table by table; see `tableChecksums`. */
export async function compareWarehouses(
  expectedPath: string,
  actualPath: string,
  options: ChecksumOptions = {},
): Promise<ChecksumDifference[]> {
  return checksumDifferences(await tableChecksums(expectedPath, options), await tableChecksums(actualPath, options));
}
