import type { DuckDBConnection } from '@duckdb/node-api';
import { hasColumn, type TableInfo } from './catalog.js';
import { readRows, type PlainRow, type RowReader } from './read-rows.js';
import { quoteIdent, quoteLiteral } from './sql-names.js';

/** The kinds of drift `_schema_drift` records (docs/schema-drift.md). */
export type DriftKind = 'field' | 'enum' | 'engine';

/** The spec's lists of enum values the stored columns hold; the caller passes them (the warehouse imports no layer). */
export interface DriftVocabulary {
  ownership: readonly string[];
  sentiment: readonly string[];
  contentType: readonly string[];
}

/** One row of `_schema_drift`. */
export interface DriftEntry {
  table: string;
  kind: DriftKind;
  name: string;
  value: string;
  firstSeen: string;
  lastSeen: string;
  rowCount: number;
  example: string | null;
  looksLike: string | null;
  /** False for the engines the first run to read a table learned (no news); true for every other entry. */
  isNew: boolean;
}

/**
 * Stored columns holding an enum value the API chose, and the spec's list it is checked against. The series values
 * of citation_daily (ownership, sentiment, content type) are the ones bvsync asked for, so they cannot drift.
 */
const ENUM_COLUMNS: ReadonlyArray<{ table: string; column: string; list: keyof DriftVocabulary }> = [
  { table: 'citation_ownership_summary', column: 'ownership', list: 'ownership' },
];

/** Columns naming an engine or model; the spec omits their literal values, so each is learned when first seen. */
function engineColumns(tables: readonly TableInfo[]): Array<{ table: string; column: string }> {
  return tables
    .filter((table) => hasColumn(table, '_run_id'))
    .flatMap((table) =>
      ['engine', 'model'].filter((column) => hasColumn(table, column)).map((column) => ({ table: table.name, column })),
    );
}

/** The DuckDB type a JSON value of this json_type() fits, as `sync.promote` takes it. */
const LOOKS_LIKE_SQL = `CASE mode(json_type(_extra -> name))
  WHEN 'OBJECT' THEN 'JSON' WHEN 'ARRAY' THEN 'JSON' WHEN 'DOUBLE' THEN 'DOUBLE' WHEN 'UBIGINT' THEN 'BIGINT'
  WHEN 'BIGINT' THEN 'BIGINT' WHEN 'BOOLEAN' THEN 'BOOLEAN' WHEN 'VARCHAR' THEN 'VARCHAR' ELSE 'JSON' END`;

const UPSERT_SQL = `INSERT INTO _schema_drift AS d
  (table_name, kind, name, "value", first_seen, last_seen, first_run_id, last_run_id, row_count, example, looks_like)
  SELECT $table, $kind, name, "value", current_timestamp, current_timestamp, $run, $run, row_count, example, looks_like FROM seen
  ON CONFLICT DO UPDATE SET last_seen = excluded.last_seen, last_run_id = excluded.last_run_id,
    row_count = excluded.row_count, example = coalesce(excluded.example, d.example), looks_like = coalesce(excluded.looks_like, d.looks_like)`;

/**
 * Records what the run's rows hold that the spec does not show: the keys of `_extra`, enum values outside the spec's
 * lists, and engines. Called by the writer at finalize; a second call for the same run changes no first-seen run.
 */
export async function recordSchemaDrift(
  connection: DuckDBConnection,
  tables: readonly TableInfo[],
  runId: string,
  vocabulary: DriftVocabulary,
): Promise<void> {
  for (const table of tables) {
    if (!hasColumn(table, '_extra') || !hasColumn(table, '_run_id')) continue;
    const name = quoteIdent(table.name);
    const touched = await readRows(
      connection,
      `SELECT 1 FROM main.${name} WHERE _run_id = $1 AND _extra IS NOT NULL LIMIT 1`,
      [runId],
    );
    if (!touched.length) continue;
    // Counted over the whole table, kept to the keys this run's rows hold: a row reloaded by a later run is one row.
    await upsert(
      connection,
      table.name,
      'field',
      runId,
      `
      WITH keyed AS (SELECT unnest(json_keys(_extra)) AS name, _extra, _run_id FROM main.${name} WHERE _extra IS NOT NULL)
      SELECT name, '' AS "value", count(*) AS row_count,
             left(CAST(any_value(_extra -> name) FILTER (WHERE _run_id = $run) AS VARCHAR), 200) AS example,
             ${LOOKS_LIKE_SQL} AS looks_like
      FROM keyed GROUP BY name HAVING count(*) FILTER (WHERE _run_id = $run) > 0`,
    );
  }
  const known = new Set(tables.map((table) => table.name));
  for (const { table, column, list } of ENUM_COLUMNS) {
    if (!known.has(table)) continue;
    const outside = `${quoteIdent(column)} NOT IN (${vocabulary[list].map(quoteLiteral).join(', ')})`;
    await upsert(connection, table, 'enum', runId, valuesSql(table, column, outside));
  }
  for (const { table, column } of engineColumns(tables)) {
    await upsert(connection, table, 'engine', runId, valuesSql(table, column, `${quoteIdent(column)} IS NOT NULL`));
  }
}

/** Each value of a column the run's rows hold, with how many rows of the whole table hold it. */
function valuesSql(table: string, column: string, condition: string): string {
  return `SELECT ${quoteLiteral(column)} AS name, CAST(${quoteIdent(column)} AS VARCHAR) AS "value", count(*) AS row_count,
            NULL AS example, NULL AS looks_like
          FROM main.${quoteIdent(table)} WHERE ${condition}
          GROUP BY ${quoteIdent(column)} HAVING count(*) FILTER (WHERE _run_id = $run) > 0`;
}

async function upsert(
  connection: DuckDBConnection,
  table: string,
  kind: DriftKind,
  runId: string,
  seenSql: string,
): Promise<void> {
  await connection.run(`WITH seen AS (${seenSql}) ${UPSERT_SQL}`, { table, kind, run: runId });
}

/**
 * What the run recorded first. An engine counts only when its table had engines recorded by an earlier run: the first
 * run to read a table learns every engine, which is no news.
 */
export async function driftFirstSeenBy(connection: DuckDBConnection, runId: string): Promise<DriftEntry[]> {
  const rows = await readRows(
    connection,
    `SELECT * FROM _schema_drift d WHERE first_run_id = $1
       AND (kind <> 'engine' OR EXISTS (SELECT 1 FROM _schema_drift e WHERE e.kind = 'engine' AND e.table_name = d.table_name AND e.first_run_id <> $1))
     ORDER BY table_name, kind, name, "value"`,
    [runId],
  );
  return rows.map(driftEntryOf);
}

/** Every recorded entry, for `status`, `doctor` and the gauge. */
export async function driftEntries(read: RowReader): Promise<DriftEntry[]> {
  const rows = await read(
    `SELECT *, kind <> 'engine' OR first_seen > min(first_seen) OVER (PARTITION BY table_name, kind) AS is_new
     FROM _schema_drift ORDER BY table_name, kind, name, "value"`,
  );
  return rows.map(driftEntryOf);
}

function driftEntryOf(row: PlainRow): DriftEntry {
  return {
    table: String(row.table_name),
    kind: String(row.kind) as DriftKind,
    name: String(row.name),
    value: String(row.value),
    firstSeen: String(row.first_seen),
    lastSeen: String(row.last_seen),
    rowCount: Number(row.row_count),
    example: row.example == null ? null : String(row.example),
    looksLike: row.looks_like == null ? null : String(row.looks_like),
    isNew: row.is_new !== false,
  };
}
