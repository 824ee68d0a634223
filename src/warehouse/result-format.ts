import { textTable } from '../text-table.js';
import { DuckDBTypeId, type DuckDBResultReader, type Json } from '@duckdb/node-api';

export type ResultFormat = 'table' | 'csv' | 'json';
export const RESULT_FORMATS: readonly ResultFormat[] = ['table', 'csv', 'json'];

// DuckDB's JSON form spells these as strings (they may exceed a double); JSON output turns the safe ones into numbers.
const NUMERIC_AS_TEXT = new Set<DuckDBTypeId>([
  DuckDBTypeId.BIGINT,
  DuckDBTypeId.UBIGINT,
  DuckDBTypeId.HUGEINT,
  DuckDBTypeId.UHUGEINT,
  DuckDBTypeId.DECIMAL,
]);

/** A query result as text: a boxed table for people, CSV (RFC 4180) or a JSON array of objects for programs. */
export function formatResult(reader: DuckDBResultReader, format: ResultFormat): string {
  const names = reader.columnNames();
  const rows = reader.getRowsJson();
  if (format === 'json') {
    const numeric = reader.columnTypes().map((type) => NUMERIC_AS_TEXT.has(type.typeId));
    const objects = rows.map((row) =>
      Object.fromEntries(row.map((value, i) => [names[i]!, numeric[i] && typeof value === 'string' ? numberIfSafe(value) : value])),
    );
    return `${JSON.stringify(objects, null, 2)}\n`;
  }
  if (format === 'csv') {
    return [names, ...rows.map((row) => row.map(cellText))].map((cells) => cells.map(csvField).join(',')).join('\n') + '\n';
  }
  const table = textTable(names);
  for (const row of rows) table.push(row.map((value) => (value === null ? 'NULL' : cellText(value))));
  return `${table.toString()}\n(${rows.length} row${rows.length === 1 ? '' : 's'})\n`;
}

function numberIfSafe(text: string): number | string {
  const value = Number(text);
  return Number.isFinite(value) && (Number.isSafeInteger(value) || !/^-?\d+$/.test(text)) ? value : text;
}

function cellText(value: Json): string {
  if (value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
