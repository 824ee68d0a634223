import type { DuckDBConnection } from '@duckdb/node-api';
import { batches } from '../../group-by.js';
import { hasColumn, type TableInfo } from '../catalog.js';
import { JOURNAL_TABLE, type JournalEntry } from './publish-journal.js';
import { readValue } from '../read-rows.js';
import { PUBLISH_COSTS_TABLE } from './publish-cost.js';
import { PUBLISHED_FILES_TABLE } from './published-identity.js';
import { SLICE_COMMITS_TABLE } from '../load/slice-commits.js';
import type { Scope } from '../load/slice-batch.js';
import { REJECTS_TABLE } from '../load/slice-loader.js';
import { quoteIdent, quoteLiteral } from '../sql-names.js';
import { castTypeOf } from '../load/table-plan.js';

/** Why a published copy cannot be brought up to date in place; the publish then copies the whole working file. */
export class FullCopyNeeded extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'FullCopyNeeded';
  }
}

// Scopes joined with OR in one statement: a few hundred keep the SQL text small and still let DuckDB's zone maps
// skip the row groups of other days.
const SCOPES_PER_STATEMENT = 200;

/** What the entries change in one table: the predicates of its replace scopes, and the runs that merged into it. */
interface TableChanges {
  info: TableInfo;
  predicates: string[];
  runs: Set<string>;
}

/** The journal's entries gathered by table: each scope once, however many entries name it. */
function changesByTable(
  entries: readonly JournalEntry[],
  catalog: ReadonlyMap<string, TableInfo>,
): Map<string, TableChanges> {
  const byTable = new Map<string, { info: TableInfo; scopes: Map<string, Scope>; runs: Set<string> }>();
  for (const entry of entries) {
    const info = catalog.get(entry.table);
    if (!info) throw new FullCopyNeeded(`the journal names table ${entry.table}, which the working file no longer has`);
    let changes = byTable.get(entry.table);
    if (!changes) byTable.set(entry.table, (changes = { info, scopes: new Map(), runs: new Set() }));
    if (entry.mode === 'merge') {
      changes.runs.add(entry.runId);
    } else {
      // The loader narrows a scope without brand_id to the slice's brand; the copy must narrow it the same way.
      const scope: Scope = { ...entry.scope };
      if (!('brand_id' in scope) && hasColumn(info, 'brand_id')) scope.brand_id = entry.brandId;
      changes.scopes.set(JSON.stringify(Object.entries(scope).sort(([a], [b]) => a.localeCompare(b))), scope);
    }
  }
  const result = new Map<string, TableChanges>();
  for (const [table, { info, scopes, runs }] of byTable)
    result.set(table, { info, predicates: [...scopes.values()].map((scope) => scopePredicate(info, scope)), runs });
  return result;
}

/** The predicates joined with OR, `size` at a time. */
export function predicateGroups(predicates: readonly string[], size = SCOPES_PER_STATEMENT): string[] {
  return batches(predicates, size).map(anyOf);
}

function anyOf(predicates: readonly string[]): string {
  return predicates.map((p) => `(${p})`).join(' OR ');
}

/** What an incremental publish of some entries would do, found by doing its reads alone (publish-cost.ts prices it). */
export interface ChangesProbe {
  /** Rows it would copy: those of every journaled scope and merging run, and every row of the bookkeeping tables. */
  rows: number;
  /**
   * How long counting the scopes' and runs' rows took: the scans their DELETEs and INSERTs repeat, as costly as the
   * box, the tables' sizes and their zone maps make them.
   */
  scanMs: number;
}

export async function probeChanges(
  connection: DuckDBConnection,
  entries: readonly JournalEntry[],
  catalog: ReadonlyMap<string, TableInfo>,
): Promise<ChangesProbe> {
  const begun = performance.now();
  let rows = 0;
  const count = async (sql: string) => {
    rows += Number(await readValue(connection, sql));
  };
  for (const [table, changes] of changesByTable(entries, catalog)) {
    const source = `main.${quoteIdent(table)}`;
    for (const where of predicateGroups(changes.predicates))
      await count(`SELECT count(*) FROM ${source} WHERE ${where}`);
    if (changes.runs.size && hasColumn(changes.info, '_run_id')) {
      await count(
        `SELECT count(*) FROM ${source} WHERE _run_id IN (${[...changes.runs].map(quoteLiteral).join(', ')})`,
      );
    }
  }
  const scanMs = performance.now() - begun;
  for (const info of catalog.values())
    if (isBookkeeping(info.name)) await count(`SELECT count(*) FROM main.${quoteIdent(info.name)}`);
  return { rows, scanMs };
}

/**
 * Brings the copy attached as `alias` to the working file's state, in a transaction writing the copy only: each replace
 * scope is deleted and copied again, merged rows replaced by key, bookkeeping tables (small) copied whole.
 */
export async function applyJournal(
  connection: DuckDBConnection,
  alias: string,
  entries: readonly JournalEntry[],
  catalog: ReadonlyMap<string, TableInfo>,
): Promise<void> {
  for (const [table, { info, predicates, runs }] of changesByTable(entries, catalog)) {
    const target = `${alias}.main.${quoteIdent(table)}`;
    const source = `main.${quoteIdent(table)}`;
    for (const where of predicateGroups(predicates)) {
      await connection.run(`DELETE FROM ${target} WHERE ${where}`);
      await connection.run(`INSERT INTO ${target} BY NAME SELECT * FROM ${source} WHERE ${where}`);
    }
    if (runs.size) {
      if (!hasColumn(info, '_run_id') || !info.primaryKey.length) {
        throw new FullCopyNeeded(
          `table ${table} was merged but has no _run_id or no primary key to find the merged rows by`,
        );
      }
      const runList = [...runs].map(quoteLiteral).join(', ');
      const sameKey = info.primaryKey
        .map((column) => `${target}.${quoteIdent(column)} = merged.${quoteIdent(column)}`)
        .join(' AND ');
      // Rows a replace above already copied are left out, or they would be inserted twice.
      const notCopied = predicates.length ? ` AND NOT (${anyOf(predicates)})` : '';
      const merged = `SELECT * FROM ${source} WHERE _run_id IN (${runList})${notCopied}`;
      await connection.run(`DELETE FROM ${target} USING (${merged}) AS merged WHERE ${sameKey}`);
      await connection.run(`INSERT INTO ${target} BY NAME ${merged}`);
    }
  }

  for (const info of catalog.values()) {
    if (!isBookkeeping(info.name)) continue;
    await connection.run(`DELETE FROM ${alias}.main.${quoteIdent(info.name)}`);
    await connection.run(
      `INSERT INTO ${alias}.main.${quoteIdent(info.name)} BY NAME SELECT * FROM main.${quoteIdent(info.name)}`,
    );
  }
}

/** The working file's own publishing bookkeeping: no copy holds it. */
export const WORKING_FILE_ONLY: ReadonlySet<string> = new Set([
  JOURNAL_TABLE,
  PUBLISHED_FILES_TABLE,
  PUBLISH_COSTS_TABLE,
  SLICE_COMMITS_TABLE,
]);

/**
 * The system tables written outside slices (runs, slice states, cursors, the migration ledger): copied whole on
 * every publish. Rejects are written by slices and journaled like data; the journal stays out of the copy.
 */
export function isBookkeeping(table: string): boolean {
  return table.startsWith('_') && table !== REJECTS_TABLE && !WORKING_FILE_ONLY.has(table);
}

/**
 * The tables whose row counts differ between copy and working file: a cheap check that no writer went around the
 * journal (rows changed in place would pass it, but the loader, the only writer of data tables, journals every write).
 */
export async function differingTables(
  connection: DuckDBConnection,
  alias: string,
  catalog: ReadonlyMap<string, TableInfo>,
): Promise<string[]> {
  const tables = [...catalog.keys()].filter((table) => !WORKING_FILE_ONLY.has(table));
  if (!tables.length) return [];
  const counts = tables
    .map(
      (table) =>
        `SELECT ${quoteLiteral(table)} AS t, (SELECT count(*) FROM main.${quoteIdent(table)}) AS w, (SELECT count(*) FROM ${alias}.main.${quoteIdent(table)}) AS p`,
    )
    .join(' UNION ALL ');
  const reader = await connection.runAndReadAll(`SELECT t FROM (${counts}) WHERE w <> p ORDER BY t`);
  return reader.getRowsJS().map((row) => String(row[0]));
}

/** A scope as SQL over the table's columns, its values as cast literals; TRUE for an empty scope. */
export function scopePredicate(info: TableInfo, scope: Scope): string {
  const parts = Object.entries(scope).map(([column, value]) => {
    const found = info.columns.find((c) => c.name === column);
    if (!found)
      throw new FullCopyNeeded(
        `a journaled scope of ${info.name} names column ${column}, which the table no longer has`,
      );
    const type = castTypeOf(found.dataType);
    const literal = (v: string | number | boolean) => `CAST(${quoteLiteral(String(v))} AS ${type})`;
    if (Array.isArray(value))
      return value.length ? `${quoteIdent(column)} IN (${value.map(literal).join(', ')})` : 'FALSE';
    return `${quoteIdent(column)} = ${literal(value as string | number | boolean)}`;
  });
  return parts.length ? parts.join(' AND ') : 'TRUE';
}
