import type { DuckDBConnection } from '@duckdb/node-api';
import { readRows } from '../read-rows.js';
import type { Row, Scope } from './slice-batch.js';
import { scopePredicate } from './slice-loader.js';
import { quoteIdent } from '../sql-names.js';
import type { TablePlan } from './table-plan.js';

/** A row of a replace that another slice's row holds the key of, and what that row's scope columns say. */
export interface KeyHeldElsewhere {
  /** The row's index in the write. */
  index: number;
  /** The key, as `brand_id=7, id=5`. */
  key: string;
  /** The scope columns of the row that holds it, as `day=2026-11-19`. */
  heldBy: string;
}

/**
 * The rows of a replace whose key a row outside its scope holds (a record now filed under another day), failing every
 * insert; asked only after such a failure. Keys compare as text, which holds for their integer, text and day columns.
 */
export async function keysHeldElsewhere(
  connection: DuckDBConnection,
  plan: TablePlan,
  write: { scope: Scope; rows: readonly Row[] },
  brandId: number,
): Promise<KeyHeldElsewhere[]> {
  const key = plan.info.primaryKey;
  if (key.length === 0 || write.rows.length === 0) return [];
  const textOf = (row: Row) =>
    key.map((column) => String(row[column] ?? (column === 'brand_id' ? brandId : ''))).join('\u0000');
  const texts = write.rows.map(textOf);
  const { sql: inScope, params } = scopePredicate(plan, write.scope);
  const scopeColumns = Object.keys(write.scope).filter((column) => column !== 'brand_id');
  const keyText = `concat_ws(chr(0), ${key.map((column) => `CAST(${quoteIdent(column)} AS VARCHAR)`).join(', ')})`;
  params.push(JSON.stringify([...new Set(texts)]));
  const held = await readRows(
    connection,
    `SELECT ${keyText} AS key_text${scopeColumns.map((column) => `, CAST(${quoteIdent(column)} AS VARCHAR) AS ${quoteIdent(`scope_${column}`)}`).join('')}
     FROM main.${quoteIdent(plan.info.name)}
     WHERE ${plan.columnNames.includes('brand_id') ? `brand_id = ${Number(brandId)} AND ` : ''}NOT (${inScope})
       AND ${keyText} IN (SELECT unnest(CAST(CAST($${params.length} AS JSON) AS VARCHAR[])))`,
    params,
  );
  const heldBy = new Map(
    held.map((row) => [
      String(row.key_text),
      scopeColumns.map((column) => `${column}=${String(row[`scope_${column}`])}`).join(', '),
    ]),
  );
  return texts.flatMap((text, index) => {
    const scope = heldBy.get(text);
    if (scope === undefined) return [];
    const shown = key.map((column, part) => `${column}=${text.split('\u0000')[part]}`).join(', ');
    return [{ index, key: shown, heldBy: scope }];
  });
}
