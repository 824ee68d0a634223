import type { DuckDBConnection, DuckDBValue } from '@duckdb/node-api';
import { readRows, readValue } from '../warehouse/read-rows.js';

/**
 * Runs a query whose rows are `(figure VARCHAR, n NUMBER)` and returns them as a map, the shape both sides of a
 * family are compared in. Bound parameters are the brand and the window, so no text is ever spliced into SQL.
 */
export async function warehouseFigures(
  connection: DuckDBConnection,
  sql: string,
  params: DuckDBValue[],
): Promise<Map<string, number>> {
  const rows = await readRows(connection, sql, params);
  return new Map(rows.map((row) => [String(row.figure), Number(row.n)]));
}

/** One number of the warehouse (a sum over the window; 0 when no row is in it). */
export async function warehouseNumber(
  connection: DuckDBConnection,
  sql: string,
  params: DuckDBValue[],
): Promise<number> {
  return Number((await readValue(connection, sql, params)) ?? 0);
}
