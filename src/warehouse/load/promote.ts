import type { DuckDBConnection } from '@duckdb/node-api';
import { hasColumn, type TableInfo } from '../catalog.js';
import { isWriterFenced, type CommitFence } from './commit-fence.js';
import { readRows } from '../read-rows.js';
import { quoteIdent, quoteLiteral } from '../sql-names.js';
import { inTransaction } from '../transaction.js';
import { WarehouseError } from '../warehouse-error.js';

/** `sync.promote`: per table, the `_extra` fields to hold in columns of their own, with the column's DuckDB type. */
export type Promotions = Readonly<Record<string, Readonly<Record<string, string>>>>;

/** The SQL that reads a field out of `_extra` as its column's type, as the loader's converter of that type would. */
function fieldValueSql(field: string, type: string): string {
  const key = quoteLiteral(field);
  if (type === 'JSON') return `_extra -> ${key}`;
  if (type === 'VARCHAR') return `_extra ->> ${key}`;
  return `CAST(_extra ->> ${key} AS ${type})`;
}

/**
 * The promotions that can be made, or a WarehouseError naming the `sync.promote` key that cannot: an unknown table, a
 * table without `_extra`, or a field that is already a column bvsync did not promote (or promoted as another type).
 */
function checkPromotions(
  promote: Promotions,
  catalog: ReadonlyMap<string, TableInfo>,
  promoted: ReadonlyMap<string, string>,
): void {
  const problems: string[] = [];
  for (const [table, fields] of Object.entries(promote)) {
    const info = catalog.get(table);
    if (!info || !hasColumn(info, '_extra')) {
      const known = [...catalog.values()]
        .filter((each) => hasColumn(each, '_extra'))
        .map((each) => each.name)
        .sort();
      problems.push(
        `sync.promote.${table}: no table "${table}" with an _extra column in the warehouse; tables: ${known.join(', ')}`,
      );
      continue;
    }
    for (const [field, type] of Object.entries(fields)) {
      const column = info.columns.find((each) => each.name === field);
      const before = promoted.get(`${table}.${field}`);
      if (column && before === undefined) {
        problems.push(
          `sync.promote.${table}.${field}: ${table} already has a column "${field}" (${column.dataType}); remove the entry`,
        );
      } else if (before !== undefined && before !== type) {
        problems.push(
          `sync.promote.${table}.${field}: the field was promoted as ${before}; keep that type (a column's type is not changed)`,
        );
      }
    }
  }
  if (problems.length) throw new WarehouseError('promote_invalid', problems.join('\n'));
}

/** The promoted fields `_promoted_fields` records, as `table.field` -> type. */
export async function promotedFields(connection: DuckDBConnection): Promise<Map<string, string>> {
  const stored = await readRows(connection, 'SELECT table_name, field, data_type FROM _promoted_fields');
  return new Map(stored.map((row) => [`${String(row.table_name)}.${String(row.field)}`, String(row.data_type)]));
}

/**
 * Adds each promoted field's column and moves the field out of `_extra` for every stored row, under the writer's
 * fence. Idempotent (test/e2e/promote.int.test.ts).
 */
export async function promoteFields(
  connection: DuckDBConnection,
  catalog: ReadonlyMap<string, TableInfo>,
  promote: Promotions,
  fence: CommitFence | undefined,
): Promise<{ added: string[]; moved: number }> {
  const entries = Object.entries(promote).flatMap(([table, fields]) =>
    Object.entries(fields).map(([field, type]) => ({ table, field, type })),
  );
  if (!entries.length) return { added: [], moved: 0 };
  const promoted = await promotedFields(connection);
  checkPromotions(promote, catalog, promoted);
  await checkValuesFit(connection, entries, promoted);
  const added: string[] = [];
  let moved = 0;
  // Two transactions: DuckDB refuses to commit an UPDATE of a table altered in the same transaction. A crash between
  // them leaves empty columns recorded as promoted, which the next call fills.
  await fencedTransaction(connection, fence, async () => {
    for (const { table, field, type } of entries) {
      if (hasColumn(catalog.get(table)!, field)) continue;
      await connection.run(`ALTER TABLE main.${quoteIdent(table)} ADD COLUMN ${quoteIdent(field)} ${type}`);
      await connection.run(
        'INSERT INTO _promoted_fields VALUES ($1, $2, $3, current_timestamp) ON CONFLICT DO NOTHING',
        [table, field, type],
      );
      added.push(`${table}.${field}`);
    }
  });
  await fencedTransaction(connection, fence, async () => {
    for (const { table, field, type } of entries) {
      const key = quoteLiteral(field);
      // json_merge_patch with a null removes the key (RFC 7396); an _extra left empty becomes NULL, as the loader stores it.
      const result = await connection.run(
        `UPDATE main.${quoteIdent(table)} SET ${quoteIdent(field)} = ${fieldValueSql(field, type)},
           _extra = nullif(json_merge_patch(_extra, json_object(${key}, NULL)), '{}'::JSON)
         WHERE _extra IS NOT NULL AND list_contains(json_keys(_extra), ${key})`,
      );
      moved += Number(result.rowsChanged);
    }
  });
  return { added, moved };
}

/**
 * Refuses, before any change, a promotion whose stored values do not all fit its type: the column is added in a
 * transaction of its own, so a cast failing in the move would leave it (test/e2e/promote.int.test.ts).
 */
async function checkValuesFit(
  connection: DuckDBConnection,
  entries: ReadonlyArray<{ table: string; field: string; type: string }>,
  promoted: ReadonlyMap<string, string>,
): Promise<void> {
  const problems: string[] = [];
  for (const { table, field, type } of entries) {
    if (type === 'JSON' || type === 'VARCHAR') continue;
    const text = `_extra ->> ${quoteLiteral(field)}`;
    const [misfit] = await readRows(
      connection,
      `SELECT count(*)::INTEGER AS rows, min(${text}) AS example FROM main.${quoteIdent(table)}
       WHERE ${text} IS NOT NULL AND TRY_CAST(${text} AS ${type}) IS NULL`,
    );
    if (misfit && Number(misfit.rows) > 0)
      problems.push(
        `sync.promote.${table}.${field}: ${misfit.rows} row(s) of ${table} hold a value that is not ${type} ` +
          `(${JSON.stringify(misfit.example)}); ` +
          (promoted.has(`${table}.${field}`)
            ? 'its column is promoted already, so remove the entry from sync.promote (the column stays)'
            : 'choose a type every value fits, or VARCHAR'),
      );
  }
  if (problems.length) throw new WarehouseError('promote_invalid', problems.join('\n'));
}

/** Runs the work in one transaction whose COMMIT waits for the writer's fence; refused, it changes nothing. */
async function fencedTransaction(
  connection: DuckDBConnection,
  fence: CommitFence | undefined,
  work: () => Promise<void>,
): Promise<void> {
  const failure = (error: unknown) =>
    error instanceof WarehouseError || isWriterFenced(error)
      ? error
      : new WarehouseError(
          'promote_invalid',
          `sync.promote: moving fields out of _extra failed, and no value moved: ${(error as Error).message}`,
          { cause: error },
        );
  await inTransaction(connection, { fence, failure }, work);
}
