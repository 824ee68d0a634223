import { DuckDBTypeId, type DuckDBResultReader, type DuckDBType, type Json } from '@duckdb/node-api';
import { formatCount, formatDecimal, formatInterval, type IntervalParts } from '../format.js';
import { textTable } from '../text-table.js';

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

const FLOATING = new Set<DuckDBTypeId>([DuckDBTypeId.DOUBLE, DuckDBTypeId.FLOAT]);
const NUMERIC = new Set<DuckDBTypeId>([
  ...NUMERIC_AS_TEXT,
  ...FLOATING,
  DuckDBTypeId.TINYINT,
  DuckDBTypeId.SMALLINT,
  DuckDBTypeId.INTEGER,
  DuckDBTypeId.UTINYINT,
  DuckDBTypeId.USMALLINT,
  DuckDBTypeId.UINTEGER,
]);

/**
 * A query result as text: a boxed table for people, CSV (RFC 4180) or a JSON array of objects for programs. Only
 * the table rounds doubles and spells intervals as durations (src/format.ts); CSV and JSON keep every value exact.
 */
export function formatResult(reader: DuckDBResultReader, format: ResultFormat): string {
  const names = reader.columnNames();
  const rows = reader.getRowsJson();
  if (format === 'json') {
    const numeric = reader.columnTypes().map((type) => NUMERIC_AS_TEXT.has(type.typeId));
    const objects = rows.map((row) =>
      Object.fromEntries(
        row.map((value, i) => [names[i]!, numeric[i] && typeof value === 'string' ? numberIfSafe(value) : value]),
      ),
    );
    return `${JSON.stringify(objects, null, 2)}\n`;
  }
  if (format === 'csv')
    return `${[names, ...rows.map((row) => row.map(cellText))].map((cells) => cells.map(csvField).join(',')).join('\n')}\n`;
  const types = reader.columnTypes();
  const table = textTable(
    names,
    types.map((type) => (NUMERIC.has(type.typeId) ? 'right' : 'left')),
  );
  for (const row of rows) table.push(row.map((value, i) => tableCell(value, types[i]!)));
  return `${table.toString()}\n(${formatCount(rows.length, 'row')})\n`;
}

function tableCell(value: Json, type: DuckDBType): string {
  if (value === null) return 'NULL';
  if (FLOATING.has(type.typeId) && typeof value === 'number') return formatDecimal(value);
  if (type.typeId === DuckDBTypeId.INTERVAL && typeof value === 'object')
    return formatInterval(value as unknown as IntervalParts);
  return cellText(value);
}

/**
 * The number a BIGINT, HUGEINT or DECIMAL's text spells when a JSON number holds it exactly (12345678901234567.89 does
 * not), else the text. A fraction's trailing zeros (DuckDB writes a DECIMAL's whole scale, `1.50`) are no loss.
 */
function numberIfSafe(text: string): number | string {
  const value = Number(text);
  const written = text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
  return Number.isFinite(value) && String(value) === written ? value : text;
}

function cellText(value: Json): string {
  if (value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
