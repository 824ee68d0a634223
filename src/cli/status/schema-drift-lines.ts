import type { DuckDBConnection } from '@duckdb/node-api';
import { promotedFields } from '../../warehouse/load/promote.js';
import { rowReader } from '../../warehouse/read-rows.js';
import { driftEntries, type DriftEntry } from '../../warehouse/schema-drift.js';

/** One table's schema drift as `status` and `doctor` show it. */
export interface TableDrift {
  table: string;
  /** Fields of `_extra` the spec does not show, with the type they look like; promoted ones left out. */
  fields: Array<{ name: string; looksLike: string | null; rows: number }>;
  /** `column=value` of enum values outside the spec's lists. */
  enumValues: string[];
  /** Engines first seen after the first run that read the table. */
  engines: string[];
}

/**
 * The published file's schema drift per table, news only (docs/schema-drift.md); null for a file made before
 * migration 018, which has no `_schema_drift`.
 */
export async function tableDrift(connection: DuckDBConnection): Promise<TableDrift[] | null> {
  let entries: DriftEntry[];
  let promoted: Set<string>;
  try {
    entries = await driftEntries(rowReader(connection));
    promoted = new Set((await promotedFields(connection)).keys());
  } catch {
    return null;
  }
  const byTable = new Map<string, TableDrift>();
  for (const entry of entries) {
    if (!entry.isNew || (entry.kind === 'field' && promoted.has(`${entry.table}.${entry.name}`))) continue;
    let drift = byTable.get(entry.table);
    if (!drift) byTable.set(entry.table, (drift = { table: entry.table, fields: [], enumValues: [], engines: [] }));
    if (entry.kind === 'field')
      drift.fields.push({ name: entry.name, looksLike: entry.looksLike, rows: entry.rowCount });
    else if (entry.kind === 'enum') drift.enumValues.push(`${entry.name}=${entry.value}`);
    else drift.engines.push(entry.value);
  }
  return [...byTable.values()];
}

/** One line per table: its new fields first (what `sync.promote` can take), then enum values and engines. */
export function tableDriftLine(drift: TableDrift): string {
  const parts: string[] = [];
  if (drift.fields.length) {
    const named = drift.fields
      .map((field) => `${field.name} (${field.looksLike ?? 'JSON'}, ${field.rows} rows)`)
      .join(', ');
    parts.push(`${drift.fields.length} field(s) the spec does not show, in _extra: ${named}`);
  }
  if (drift.enumValues.length) parts.push(`value(s) outside the spec's lists: ${drift.enumValues.join(', ')}`);
  if (drift.engines.length) parts.push(`engine(s) not seen before: ${drift.engines.join(', ')}`);
  return `${drift.table}: ${parts.join('; ')}`;
}

/** What to do about it, said once under the lines. */
export const DRIFT_ADVICE =
  'SELECT * FROM v_schema_drift shows it all; sync.promote gives a field a column with no API call (docs/schema-drift.md)';
