import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openReadOnly } from '../../src/warehouse/publish/published-database.js';
import { readRows } from '../../src/warehouse/read-rows.js';
import { quoteIdent, quoteLiteral } from '../../src/warehouse/sql-names.js';

export interface TableDifference {
  table: string;
  /** Rows of the published file the lake lacks, and rows of the lake the file lacks (EXCEPT ALL both ways). */
  onlyFile: number;
  onlyLake: number;
  /** The published file's rows. */
  rows: number;
}

/**
 * Every table of the published file at `published` against the Parquet lake at `lake`, read with
 * read_parquet(hive_partitioning = true) as docs/lake.md tells readers to. A table with no rows must have no rows there.
 */
export async function lakeDifferences(published: string, lake: string): Promise<TableDifference[]> {
  const db = await openReadOnly(published);
  try {
    const tables = await readRows(
      db.connection,
      "SELECT table_name AS t FROM duckdb_tables() WHERE schema_name = 'main' AND table_name <> '_published' ORDER BY 1",
    );
    const out: TableDifference[] = [];
    for (const { t } of tables) {
      const table = String(t);
      const rows = Number((await readRows(db.connection, `SELECT count(*) AS n FROM main.${quoteIdent(table)}`))[0]!.n);
      const folder = join(lake, table);
      if (rows === 0) {
        // An unpartitioned table keeps its one file, empty; a partitioned one has no partition, so no file.
        const glob = quoteLiteral(join(folder, '**', '*.parquet'));
        const held =
          existsSync(folder) && parquetFiles(folder).length
            ? (await readRows(db.connection, `SELECT count(*) AS n FROM read_parquet(${glob})`))[0]!.n
            : 0;
        out.push({ table, onlyFile: 0, onlyLake: Number(held), rows });
        continue;
      }
      const columns = (
        await readRows(
          db.connection,
          "SELECT column_name AS c FROM duckdb_columns() WHERE schema_name = 'main' AND table_name = $1 ORDER BY column_index",
          [table],
        )
      )
        .map((row) => quoteIdent(String(row.c)))
        .join(', ');
      const file = `SELECT ${columns} FROM main.${quoteIdent(table)}`;
      const parquet = `SELECT ${columns} FROM read_parquet(${quoteLiteral(join(lake, table, '**', '*.parquet'))}, hive_partitioning = true)`;
      const [counts] = await readRows(
        db.connection,
        `SELECT (SELECT count(*) FROM (${file} EXCEPT ALL ${parquet})) AS only_file, (SELECT count(*) FROM (${parquet} EXCEPT ALL ${file})) AS only_lake`,
      );
      out.push({ table, onlyFile: Number(counts!.only_file), onlyLake: Number(counts!.only_lake), rows });
    }
    return out;
  } finally {
    db.close();
  }
}

export function parquetFiles(folder: string): string[] {
  return readdirSync(folder, { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('.parquet'));
}
