import type { DuckDBConnection } from '@duckdb/node-api';

export interface ColumnInfo {
  name: string;
  /** As DuckDB's catalog spells it: `BIGINT`, `DATE`, `TIMESTAMP WITH TIME ZONE`, `JSON`, `INTEGER[]`... */
  dataType: string;
  nullable: boolean;
}

export interface TableInfo {
  name: string;
  columns: ColumnInfo[];
  primaryKey: string[];
}

/**
 * The tables of the database's main schema with their columns and primary keys, read from DuckDB's own
 * catalog, so the migrations stay the one place that lists columns.
 */
export async function readCatalog(connection: DuckDBConnection): Promise<Map<string, TableInfo>> {
  const columns = await connection.runAndReadAll(`
    SELECT table_name, column_name, data_type, is_nullable
    FROM duckdb_columns()
    WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal
      AND table_name IN (SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() AND schema_name = 'main')
    ORDER BY table_name, column_index`);
  const tables = new Map<string, TableInfo>();
  for (const [table, column, dataType, nullable] of columns.getRowsJS() as Array<[string, string, string, boolean]>) {
    let info = tables.get(table);
    if (!info) tables.set(table, (info = { name: table, columns: [], primaryKey: [] }));
    info.columns.push({ name: column, dataType, nullable });
  }
  const keys = await connection.runAndReadAll(`
    SELECT table_name, constraint_column_names
    FROM duckdb_constraints()
    WHERE database_name = current_database() AND schema_name = 'main' AND constraint_type = 'PRIMARY KEY'`);
  for (const [table, names] of keys.getRowsJS() as Array<[string, string[]]>) {
    const info = tables.get(table);
    if (info) info.primaryKey = [...names];
  }
  return tables;
}

export function hasColumn(table: TableInfo, column: string): boolean {
  return table.columns.some((each) => each.name === column);
}
