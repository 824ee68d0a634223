import type { DuckDBConnection, DuckDBResultReader, DuckDBValue } from '@duckdb/node-api';

/** A result row with plain JSON-friendly values: safe bigints as numbers, timestamps as ISO strings. */
export type PlainRow = Record<string, unknown>;

/** Runs one query and returns plain rows: `Warehouse.query`, or `readRows` bound to a connection. */
export type RowReader = (sql: string, params?: DuckDBValue[]) => Promise<PlainRow[]>;

export function plainValue(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plainValue);
  if (value && typeof value === 'object' && !(value instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, plainValue(inner)]));
  }
  return value;
}

/** The first value of a query's first row; undefined when it returns no row. */
export async function readValue(connection: DuckDBConnection, sql: string, params?: DuckDBValue[]): Promise<unknown> {
  return (await connection.runAndReadAll(sql, params)).getRowsJS()[0]?.[0];
}

export function plainRows(reader: DuckDBResultReader): PlainRow[] {
  return reader.getRowObjectsJS().map((row) => plainValue(row) as PlainRow);
}

/** Runs a query and returns its rows as plain objects. Cast DATE columns to VARCHAR to get `YYYY-MM-DD`. */
export async function readRows(connection: DuckDBConnection, sql: string, params?: DuckDBValue[]): Promise<PlainRow[]> {
  return plainRows(await connection.runAndReadAll(sql, params));
}

export function rowReader(connection: DuckDBConnection): RowReader {
  return (sql, params) => readRows(connection, sql, params);
}
