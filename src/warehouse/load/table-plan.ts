import type { DuckDBValue } from '@duckdb/node-api';
import type { TableInfo } from '../catalog.js';
import { converterFor, type CellConverter } from './cell-converters.js';

/** What the loader fills in for a row that does not carry it itself. */
export interface RowDefaults {
  brandId: DuckDBValue;
  syncedAt: DuckDBValue;
  runId: DuckDBValue;
}

/**
 * How rows of one table become staged values: its columns in catalog order with their converters, and
 * where the columns the loader fills in sit. Built once per table from the catalog.
 */
export interface TablePlan {
  info: TableInfo;
  columnNames: string[];
  columnTypes: string[];
  columnSet: ReadonlySet<string>;
  converters: CellConverter[];
  /** Index of each defaultable column, or -1 when the table has none. */
  brandIdIndex: number;
  syncedAtIndex: number;
  runIdIndex: number;
  extraIndex: number;
  /** Fields `sync.promote` moves out of `_extra` into their own column, with that column's index (promote.ts). */
  promoted: Array<{ field: string; index: number }>;
}

export function planTable(info: TableInfo, promotedFields: readonly string[] = []): TablePlan {
  const columnNames = info.columns.map((column) => column.name);
  return {
    info,
    columnNames,
    columnTypes: info.columns.map((column) => column.dataType),
    columnSet: new Set(columnNames),
    converters: info.columns.map((column) => {
      try {
        return converterFor(column.dataType);
      } catch (error) {
        throw new Error(`${info.name}.${column.name}: ${(error as Error).message}`);
      }
    }),
    brandIdIndex: columnNames.indexOf('brand_id'),
    syncedAtIndex: columnNames.indexOf('_synced_at'),
    runIdIndex: columnNames.indexOf('_run_id'),
    extraIndex: columnNames.indexOf('_extra'),
    promoted: promotedFields
      .map((field) => ({ field, index: columnNames.indexOf(field) }))
      .filter((each) => each.index >= 0),
  };
}

/**
 * The row as its table stores it: each promoted field taken out of `_extra` into its own column, as `promoteFields`
 * moved the stored rows (promote.ts). The row itself when the table promotes nothing or its `_extra` holds none.
 */
export function promotedRow<R extends Record<string, unknown>>(row: R, plan: TablePlan): R {
  if (plan.promoted.length === 0) return row;
  const extra = row._extra;
  if (extra === null || typeof extra !== 'object' || Array.isArray(extra)) return row;
  let rest: Record<string, unknown> | undefined;
  let moved: Record<string, unknown> | undefined;
  for (const { field } of plan.promoted) {
    if (!Object.hasOwn(extra, field)) continue;
    rest ??= { ...(extra as Record<string, unknown>) };
    (moved ??= {})[field] = rest[field];
    delete rest[field];
  }
  if (!moved) return row;
  return { ...row, ...moved, _extra: Object.keys(rest!).length ? rest : null } as R;
}

/** The SQL type to cast a scope parameter to, so `'2026-11-20'` compares as a DATE. */
export function castTypeOf(dataType: string): string {
  return dataType === 'TIMESTAMP WITH TIME ZONE' ? 'TIMESTAMPTZ' : dataType;
}
