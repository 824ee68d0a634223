import {
  DuckDBDataChunkWriter,
  timestampTZValue,
  type DuckDBConnection,
  type DuckDBMaterializedResult,
  type DuckDBPreparedStatement,
  type DuckDBValue,
} from '@duckdb/node-api';
import { groupBy } from '../../group-by.js';
import type { Row, Scope, SliceBatch, TableWrite } from './slice-batch.js';
import type { TablePlan, RowDefaults } from './table-plan.js';
import { castTypeOf, promotedRow } from './table-plan.js';
import { compileScope } from './scope.js';
import { SLICE_QUERIES_TABLE, dropUnsaidSliceQueries, sliceQueryWrite } from '../provenance.js';
import type { RunCounters } from '../state/run-log.js';
import type { SliceKey } from '../state/bookkeeping.js';
import { journalWrites } from '../publish/publish-journal.js';
import type { CommitFence } from './commit-fence.js';
import { recordSliceCommits } from './slice-commits.js';
import { readValue } from '../read-rows.js';
import { inTransaction } from '../transaction.js';
import { quoteIdent } from '../sql-names.js';
import { WarehouseError } from '../warehouse-error.js';

export const REJECTS_TABLE = '_rejected_records';

export interface TableLoadResult {
  table: string;
  mode: TableWrite['mode'];
  /** Rows removed by a `replace` scope before the insert. */
  deleted: number;
  /** Rows inserted or updated. */
  written: number;
}

export interface LoadResult extends SliceKey {
  tables: TableLoadResult[];
  /** Rows written to data tables (rejects not counted). */
  rowsWritten: number;
  rejects: number;
}

interface StagedWrite {
  write: TableWrite;
  plan: TablePlan;
  /** The TEMP table holding the write's rows, shared by every write of the load to the same table. */
  stage: string;
  /** The write's rows in the stage are those whose `_part` is this. */
  part: number;
  /** The load's slice it belongs to (its position among the batches), and that slice's brand. */
  slice: number;
  brandId: number;
  staged: number;
}

// Statements every slice runs with new values (state, counters, scoped deletes) are prepared once per
// connection: parsing and planning them again cost more than running them on a small slice.
const PREPARED_STATEMENTS_LIMIT = 256;
const preparedStatements = new WeakMap<DuckDBConnection, Map<string, DuckDBPreparedStatement>>();

async function runPrepared(
  connection: DuckDBConnection,
  sql: string,
  values: DuckDBValue[],
): Promise<DuckDBMaterializedResult> {
  let cache = preparedStatements.get(connection);
  if (!cache) preparedStatements.set(connection, (cache = new Map()));
  let statement = cache.get(sql);
  if (!statement) {
    // Scopes with lists give one text per list length; a bound keeps odd shapes from piling up.
    if (cache.size >= PREPARED_STATEMENTS_LIMIT) cache.clear();
    statement = await connection.prepare(sql);
    cache.set(sql, statement);
  }
  statement.clearBindings();
  statement.bind(values);
  return statement.run();
}

/**
 * Loads slices (facts, rejects, `_sync_state`, run counters) in ONE transaction that commits all or none; rows are staged
 * in TEMP tables outside it. test/warehouse/loader.int.test.ts, test/warehouse/slice-batches.int.test.ts.
 */
export async function loadSliceBatches(
  connection: DuckDBConnection,
  /** Resolves a table name to its plan, or throws the error a stream bug deserves. */
  lookup: (table: string) => TablePlan,
  batches: readonly SliceBatch[],
  fence?: CommitFence,
): Promise<LoadResult[]> {
  const slices = new Set<string>();
  for (const batch of batches) {
    checkBatch(batch);
    const slice = `${batch.brandId}/${batch.stream}/${batch.sliceKey}`;
    if (slices.has(slice))
      throw new WarehouseError(
        'row_invalid',
        `slice ${slice} appears twice in one load; load its batches one after the other`,
      );
    slices.add(slice);
  }
  const now = new Date();
  const syncedAt = timestampTZValue(BigInt(now.getTime()) * 1000n);
  let parts = 0;
  const staged: StagedWrite[][] = batches.map((batch, slice) =>
    writesOf(batch).map((write) => ({
      write,
      plan: lookup(write.table),
      stage: `_stage_${write.table}`,
      part: parts++,
      slice,
      brandId: batch.brandId,
      staged: write.rows.length,
    })),
  );
  // One stage per table for all the slices of the load: creating, filling and dropping a TEMP table costs more than a
  // small slice's own insert.
  const filled = staged.flat().filter((item) => item.staged);
  const stages = groupBy(filled, (item) => item.stage);
  const created: string[] = [];
  try {
    for (const [stage, items] of stages) {
      // Listed before staging, so a stage half-filled by a bad row is dropped too.
      created.push(stage);
      const fills = items.map((item) => {
        const batch = batches[item.slice]!;
        return {
          rows: item.write.rows,
          part: item.part,
          defaults: { brandId: BigInt(batch.brandId), syncedAt, runId: batch.runId },
        };
      });
      await stageRows(connection, items[0]!.plan, fills, stage);
    }

    return await inTransaction(connection, {}, async () => {
      const tables: TableLoadResult[][] = batches.map(() => []);
      for (const items of groupBy(staged.flat(), (item) => item.write.table).values()) {
        const outcomes = await applyTableWrites(connection, items);
        for (const [index, item] of items.entries()) tables[item.slice]!.push(outcomes[index]!);
      }
      const unsaid = await dropUnsaidSliceQueries(
        connection,
        batches.map((batch) => (recordsQuery(batch) && !batch.appliedQuery ? batch : undefined)),
      );
      const results: LoadResult[] = [];
      for (const [position, batch] of batches.entries()) {
        // Data rows only: the rejects and the applied query are the loader's bookkeeping.
        const own = tables[position]!.filter((t) => t.table !== REJECTS_TABLE && t.table !== SLICE_QUERIES_TABLE);
        if (batch.attemptOnly) await recordAttempt(connection, batch, now);
        // In the slice's transaction, so the next publish knows exactly what to copy into the analysts' file.
        const dropped = unsaid.get(position);
        await journalWrites(connection, batch.runId, batch.brandId, [
          ...staged[position]!.map((item) => item.write),
          ...(dropped ? [dropped] : []),
        ]);
        results.push({
          brandId: batch.brandId,
          stream: batch.stream,
          sliceKey: batch.sliceKey,
          tables: own,
          rowsWritten: own.reduce((sum, t) => sum + t.written, 0),
          rejects: batch.rejects.length,
        });
      }
      const storingState = batches.filter((batch) => !batch.attemptOnly);
      await upsertSliceStates(connection, storingState, now);
      await addRunCounters(connection, batches, results);
      // Last before COMMIT: a writer whose lease passed on meanwhile (a stall past its ttl) rolls back (commit-fence.ts).
      const mark = fence ? { token: await fence.confirm(batches), checkedAt: new Date() } : undefined;
      await recordSliceCommits(
        connection,
        batches.flatMap((batch) => (batch.token ? [{ token: batch.token, runId: batch.runId }] : [])),
        now,
        mark,
      );
      return results;
    });
  } finally {
    for (const stage of created)
      await connection.run(`DROP TABLE IF EXISTS temp.main.${quoteIdent(stage)}`).catch(() => undefined);
  }
}

/** The batch's table writes, plus its rejects as a write of their own unless its earlier rejects are kept. */
function writesOf(batch: SliceBatch): TableWrite[] {
  // A failed fetch that brings no rejects leaves the slice's rows and its earlier rejects as they were; so does an
  // attempt recorded beside a better state.
  if (batch.attemptOnly && (batch.writes.length > 0 || batch.rejects.length > 0)) {
    throw new WarehouseError('row_invalid', 'a batch that only records an attempt cannot carry writes or rejects');
  }
  const system = batch.writes.find((write) => write.table.startsWith('_'));
  if (system) {
    throw new WarehouseError(
      'unknown_table',
      `a slice cannot write the system table ${system.table}; the loader keeps it`,
    );
  }
  const keepRejects = batch.attemptOnly === true || (batch.state.status === 'failed' && batch.rejects.length === 0);
  const writes = keepRejects ? [...batch.writes] : [...batch.writes, rejectsWrite(batch)];
  if (batch.appliedQuery && recordsQuery(batch)) writes.push(sliceQueryWrite(batch, batch.appliedQuery));
  return writes;
}

/** Whether the load replaces the slice's rows, and so its `_slice_queries` row, the record of what they cover. */
function recordsQuery(batch: SliceBatch): boolean {
  return !batch.attemptOnly && batch.state.status !== 'failed';
}

function checkBatch(batch: SliceBatch): void {
  const problems: string[] = [];
  if (!Number.isSafeInteger(batch.brandId) || batch.brandId <= 0)
    problems.push(`brandId ${batch.brandId} is not a brand id`);
  if (!batch.stream) problems.push('stream is empty');
  if (!batch.sliceKey) problems.push('sliceKey is empty');
  if (!batch.runId) problems.push('runId is empty');
  if (problems.length) throw new WarehouseError('row_invalid', `slice batch refused: ${problems.join('; ')}`);
}

/** The slice's rejects as a write of their own, replacing whatever the slice's previous load rejected. */
function rejectsWrite(batch: SliceBatch): TableWrite {
  const rejectedAt = new Date().toISOString();
  return {
    table: REJECTS_TABLE,
    mode: 'replace',
    scope: { brand_id: batch.brandId, stream: batch.stream, slice_key: batch.sliceKey },
    rows: batch.rejects.map((reject, index) => ({
      id: `${batch.brandId}/${batch.stream}/${batch.sliceKey}/${index}`,
      run_id: batch.runId,
      brand_id: batch.brandId,
      stream: batch.stream,
      slice_key: batch.sliceKey,
      source: reject.source,
      raw: (reject.raw ?? null) as Row[string],
      issues: reject.issues,
      rejected_at: rejectedAt,
    })),
  };
}

/** The rows of one write to a table, and what fills the columns its rows leave empty. */
interface StageFill {
  rows: readonly Row[];
  part: number;
  defaults: RowDefaults;
}

/**
 * Appends the rows of every fill into a fresh TEMP table shaped like the target (no constraints) plus `_seq`, a row's
 * order, and `_part`, the write it belongs to.
 */
async function stageRows(
  connection: DuckDBConnection,
  plan: TablePlan,
  fills: readonly StageFill[],
  stage: string,
): Promise<void> {
  const table = plan.info.name;
  await connection.run(
    `CREATE OR REPLACE TEMP TABLE ${quoteIdent(stage)} AS SELECT * FROM main.${quoteIdent(table)} LIMIT 0;
     ALTER TABLE temp.main.${quoteIdent(stage)} ADD COLUMN _seq BIGINT;
     ALTER TABLE temp.main.${quoteIdent(stage)} ADD COLUMN _part INTEGER;`,
  );
  const appender = await connection.createAppender(stage, 'main', 'temp');
  try {
    const writer = DuckDBDataChunkWriter.forAppender(appender);
    const width = plan.columnNames.length;
    const values: (DuckDBValue | null)[] = new Array<DuckDBValue | null>(width + 2);
    const { columnNames, converters, columnSet } = plan;
    for (const { rows, part, defaults } of fills) {
      values[width + 1] = part;
      for (let r = 0; r < rows.length; r++) {
        const row = promotedRow(rows[r]!, plan);
        for (const key in row) {
          if (!columnSet.has(key)) {
            throw new WarehouseError(
              'unknown_column',
              `table ${table} has no column "${key}" (row ${r}); a stream must put unknown fields in _extra`,
            );
          }
        }
        for (let c = 0; c < width; c++) {
          const value = row[columnNames[c]!];
          if (value === undefined || value === null) {
            values[c] =
              c === plan.brandIdIndex
                ? defaults.brandId
                : c === plan.syncedAtIndex
                  ? defaults.syncedAt
                  : c === plan.runIdIndex
                    ? defaults.runId
                    : null;
            continue;
          }
          if (c === plan.extraIndex && isEmptyObject(value)) {
            values[c] = null;
            continue;
          }
          try {
            values[c] = converters[c]!(value);
          } catch (error) {
            throw new WarehouseError(
              'row_invalid',
              `${table}.${columnNames[c]} (row ${r}): ${(error as Error).message}`,
            );
          }
        }
        values[width] = BigInt(r);
        writer.appendRow(values);
      }
    }
    writer.flush();
    appender.flushSync();
  } finally {
    try {
      appender.closeSync();
    } catch {
      // Closing flushes; after a failed row the error that matters has already been thrown.
    }
  }
}

function isEmptyObject(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Date) return false;
  for (const _ in value) return false;
  return true;
}

/**
 * The QUALIFY that keeps the last staged row of each key within `within` (`_part`: each write alone), or '' for a table
 * without a key. A replace's counts and inserts share it (test/warehouse/slice-batches.int.test.ts compares them).
 */
function lastPerKey(plan: TablePlan, within: readonly string[]): string {
  const key = plan.info.primaryKey.map(quoteIdent);
  return key.length
    ? `QUALIFY row_number() OVER (PARTITION BY ${[...within, ...key].join(', ')} ORDER BY _seq DESC) = 1`
    : '';
}

function stagedRows(item: StagedWrite): string {
  return `SELECT * EXCLUDE (_seq, _part) FROM temp.main.${quoteIdent(item.stage)} WHERE _part = ${item.part}`;
}

/**
 * The load's writes to one table, in slice order; as each statement has a planning cost, one serves several when that
 * equals applying them in turn: merges, and replaces whose scopes cannot hold each other's rows (then one insert).
 */
async function applyTableWrites(
  connection: DuckDBConnection,
  items: readonly StagedWrite[],
): Promise<TableLoadResult[]> {
  const filled = items.filter((item) => item.staged > 0);
  if (filled.length > 1 && items.every((item) => item.write.mode === 'merge')) return mergeTogether(connection, items);
  // Replaces with no rows too (most slices' rejects): each still deletes its scope, and together that is one statement.
  if (items.length > 1 && items.every((item) => item.write.mode === 'replace') && scopesApart(items))
    return replaceTogether(connection, items);
  const results: TableLoadResult[] = [];
  for (const item of items) results.push(await applyWrite(connection, item));
  return results;
}

function resultOf(item: StagedWrite): TableLoadResult {
  return { table: item.plan.info.name, mode: item.write.mode, deleted: 0, written: 0 };
}

/** The scope a replace applies to: the write's own, and the slice's brand where the table has a brand column. */
function fullScope(item: StagedWrite): Scope {
  const scope: Scope = { ...(item.write as Extract<TableWrite, { mode: 'replace' }>).scope };
  if (item.plan.brandIdIndex >= 0 && !('brand_id' in scope)) scope.brand_id = item.brandId;
  return scope;
}

/**
 * Whether no replace's scope can hold another's rows: every two of them ask different values of a column they both
 * scope (different brands, days, keys), so deleting one's scope never touches the other's rows.
 */
function scopesApart(items: readonly StagedWrite[]): boolean {
  const scopes = items.map((item) =>
    Object.entries(fullScope(item)).map(
      ([column, value]) => [column, new Set((Array.isArray(value) ? value : [value]).map(String))] as const,
    ),
  );
  for (let i = 0; i < scopes.length; i++) {
    for (let j = i + 1; j < scopes.length; j++) {
      const other = new Map(scopes[j]);
      const apart = scopes[i]!.some(([column, values]) => {
        const theirs = other.get(column);
        return theirs !== undefined && ![...values].some((value) => theirs.has(value));
      });
      if (!apart) return false;
    }
  }
  return true;
}

async function deleteWhere(
  connection: DuckDBConnection,
  item: StagedWrite,
  { sql, params }: { sql: string; params: DuckDBValue[] },
): Promise<number> {
  return (await runPrepared(connection, `DELETE FROM main.${quoteIdent(item.plan.info.name)} WHERE ${sql}`, params))
    .rowsChanged;
}

/** Refuses a replace whose staged rows fall outside its scope (they would never be replaced); returns the scope's predicate. */
async function checkScope(
  connection: DuckDBConnection,
  item: StagedWrite,
): Promise<{ sql: string; params: DuckDBValue[] }> {
  const { plan, stage } = item;
  const scope = fullScope(item);
  const { sql: predicate, params } = scopePredicate(plan, scope);
  // The rows are checked in JS first, as that is cheap; only rows that do not plainly match ask DuckDB, whose
  // cast comparison is the authority and names the error.
  const inScope = compileScope(scope, item.brandId);
  if (item.staged && item.write.rows.some((row) => inScope.check(row) !== undefined)) {
    const outside = `SELECT count(*) FROM temp.main.${quoteIdent(stage)} WHERE _part = ${item.part} AND (${predicate}) IS NOT TRUE`;
    const count = Number(await readValue(connection, outside, params));
    if (count > 0) {
      throw new WarehouseError(
        'scope_invalid',
        `${count} row(s) for ${plan.info.name} fall outside the write's scope ${JSON.stringify(scope)}; they would never be replaced`,
      );
    }
  }
  return { sql: predicate, params };
}

/** Separates the columns of a scope's text, as `concat_ws` builds it on both sides of `deleteScopes`. */
const SCOPE_TEXT_SEPARATOR = 'chr(31)';

/**
 * Deletes the apart scopes of several replaces of one table in ONE `DELETE ... USING` scan, and returns each replace's
 * deleted-row count, matched by the scope columns' text. test/warehouse/slice-batches.int.test.ts.
 */
async function deleteScopes(connection: DuckDBConnection, items: readonly StagedWrite[]): Promise<number[]> {
  const counts = items.map(() => 0);
  const predicates: Array<{ sql: string; params: DuckDBValue[] }> = [];
  for (const item of items) predicates.push(await checkScope(connection, item));
  const groups = groupBy(items.keys(), (index) => Object.keys(fullScope(items[index]!)).sort().join('\u0000'));
  for (const members of groups.values()) {
    if (members.length === 1) {
      counts[members[0]!] = await deleteWhere(connection, items[members[0]!]!, predicates[members[0]!]!);
      continue;
    }
    const set = scopeTuples(members.map((index) => ({ index, item: items[index]! })));
    if (!set) continue;
    const table = `main.${quoteIdent(items[members[0]!]!.plan.info.name)}`;
    const text = (of: (column: string) => string) =>
      `concat_ws(${SCOPE_TEXT_SEPARATOR}, ${set.columns.map((column) => `${of(column)}::VARCHAR`).join(', ')})`;
    const named = set.columns.map((_, position) => `_c${position}`);
    const on = set.columns
      .map((column, position) => `${table}.${quoteIdent(column)} = _scope.${named[position]}`)
      .join(' AND ');
    const deleted = (
      await connection.runAndReadAll(
        `DELETE FROM ${table} USING (VALUES ${set.rows.map((row) => `(${row.cells})`).join(', ')}) AS _scope(${named.join(', ')}) WHERE ${on}
         RETURNING ${text((column) => quoteIdent(column))}`,
        set.params,
      )
    ).getRowsJS();
    // Nothing deleted (a backfill into new days): no count to tell apart.
    if (!deleted.length) continue;
    const owners = await connection.runAndReadAll(
      `SELECT _part, ${text((column) => named[set.columns.indexOf(column)]!)} FROM (VALUES ${set.rows.map((row) => `(${row.part}, ${row.cells})`).join(', ')}) AS _scope(_part, ${named.join(', ')})`,
      set.params,
    );
    const ownerOf = new Map(owners.getRowsJS().map(([part, key]) => [String(key), Number(part)]));
    for (const [key] of deleted) {
      const owner = ownerOf.get(String(key));
      if (owner !== undefined) counts[owner] = (counts[owner] ?? 0) + 1;
    }
  }
  return counts;
}

/**
 * The tuples of the scopes of replaces sharing one set of scope columns, a list value spread over a tuple per value,
 * each as cast parameters; undefined when none has any (every list empty).
 */
function scopeTuples(
  members: ReadonlyArray<{ index: number; item: StagedWrite }>,
): { columns: string[]; rows: Array<{ part: number; cells: string }>; params: DuckDBValue[] } | undefined {
  const { plan } = members[0]!.item;
  const columns = Object.keys(fullScope(members[0]!.item)).sort();
  const types = columns.map((column) => scopeColumnType(plan, column));
  const params: DuckDBValue[] = [];
  const rows: Array<{ part: number; cells: string }> = [];
  for (const { index, item } of members) {
    const scope = fullScope(item);
    let tuples: Array<Array<string | number | boolean>> = [[]];
    for (const column of columns) {
      const value = scope[column]!;
      const values = Array.isArray(value)
        ? (value as ReadonlyArray<string | number>)
        : [value as string | number | boolean];
      tuples = tuples.flatMap((tuple) => values.map((one) => [...tuple, one]));
    }
    for (const tuple of tuples) {
      const cells = tuple.map((value, position) => {
        params.push(value);
        return `CAST($${params.length} AS ${types[position]})`;
      });
      rows.push({ part: index, cells: cells.join(', ') });
    }
  }
  return rows.length ? { columns, rows, params } : undefined;
}

/** The rows each write brings once deduplicated by key (what inserting or merging it alone would write). */
async function dedupedCounts(connection: DuckDBConnection, items: readonly StagedWrite[]): Promise<number[]> {
  const { plan, stage } = items[0]!;
  const rows = await connection.runAndReadAll(
    `SELECT _part, count(*) FROM (SELECT _part FROM temp.main.${quoteIdent(stage)} ${lastPerKey(plan, ['_part'])}) GROUP BY _part`,
  );
  const byPart = new Map(rows.getRowsJS().map(([part, count]) => [Number(part), Number(count)]));
  return items.map((item) => byPart.get(item.part) ?? 0);
}

async function replaceTogether(
  connection: DuckDBConnection,
  items: readonly StagedWrite[],
): Promise<TableLoadResult[]> {
  const results = items.map(resultOf);
  const deleted = await deleteScopes(connection, items);
  for (const [index, count] of deleted.entries()) results[index]!.deleted = count;
  if (!items.some((item) => item.staged > 0)) return results;
  const { plan, stage } = items[0]!;
  // Rows are deduplicated within their own write only: two writes bringing one key fail on the key, as they would one
  // after the other.
  await connection.run(
    `INSERT INTO main.${quoteIdent(plan.info.name)} BY NAME SELECT * EXCLUDE (_seq, _part) FROM temp.main.${quoteIdent(stage)}
     ${lastPerKey(plan, ['_part'])}`,
  );
  const written = await dedupedCounts(connection, items);
  for (const [index, count] of written.entries()) results[index]!.written = count;
  return results;
}

async function mergeTogether(connection: DuckDBConnection, items: readonly StagedWrite[]): Promise<TableLoadResult[]> {
  const { plan, stage } = items[0]!;
  const written = await dedupedCounts(connection, items);
  await connection.run(
    mergeStatement(plan, `SELECT * EXCLUDE (_seq, _part) FROM temp.main.${quoteIdent(stage)}`, ['_part', '_seq']),
  );
  return items.map((item, index) => ({ ...resultOf(item), written: written[index]! }));
}

/**
 * MERGE of the rows of `source` (the stage's columns) into the table by its primary key, one row per key: the one
 * last by `order` (descending), as a later page, or a later slice, is the fresher answer.
 */
function mergeStatement(plan: TablePlan, source: string, order: readonly string[]): string {
  const key = plan.info.primaryKey;
  if (!key.length) {
    throw new WarehouseError('unknown_table', `table ${plan.info.name} has no primary key, so it cannot be merged`);
  }
  const keyList = key.map(quoteIdent).join(', ');
  const deduped = `${source} QUALIFY row_number() OVER (PARTITION BY ${keyList} ORDER BY ${order.map((column) => `${column} DESC`).join(', ')}) = 1`;
  const on = key.map((column) => `existing.${quoteIdent(column)} = incoming.${quoteIdent(column)}`).join(' AND ');
  // Only the non-key columns are set: updating a key column makes DuckDB delete and re-insert through the index.
  const set = plan.columnNames
    .filter((column) => !key.includes(column))
    .map((column) => `${quoteIdent(column)} = incoming.${quoteIdent(column)}`)
    .join(', ');
  return `MERGE INTO main.${quoteIdent(plan.info.name)} AS existing USING (${deduped}) AS incoming ON ${on}
       ${set ? `WHEN MATCHED THEN UPDATE SET ${set}` : 'WHEN MATCHED THEN DO NOTHING'} WHEN NOT MATCHED THEN INSERT`;
}

async function applyWrite(connection: DuckDBConnection, item: StagedWrite): Promise<TableLoadResult> {
  const { write, plan } = item;
  const result = resultOf(item);
  if (write.mode === 'replace')
    result.deleted = await deleteWhere(connection, item, await checkScope(connection, item));
  if (!item.staged) return result;
  const statement =
    write.mode === 'replace'
      ? `INSERT INTO main.${quoteIdent(plan.info.name)} BY NAME ${stagedRows(item)} ${lastPerKey(plan, [])}`
      : mergeStatement(plan, stagedRows(item), ['_seq']);
  result.written = (await connection.run(statement)).rowsChanged;
  return result;
}

/** `a = CAST($1 AS T) AND b IN (CAST($2 AS T), ...)` over the table's columns, values bound as parameters. */
export function scopePredicate(plan: TablePlan, scope: Scope): { sql: string; params: DuckDBValue[] } {
  const parts: string[] = [];
  const params: DuckDBValue[] = [];
  const bind = (value: string | number | boolean, type: string): string => {
    params.push(value);
    return `CAST($${params.length} AS ${type})`;
  };
  for (const [column, value] of Object.entries(scope)) {
    const type = scopeColumnType(plan, column);
    if (Array.isArray(value)) {
      parts.push(value.length ? `${quoteIdent(column)} IN (${value.map((v) => bind(v, type)).join(', ')})` : 'FALSE');
    } else {
      parts.push(`${quoteIdent(column)} = ${bind(value as string | number | boolean, type)}`);
    }
  }
  if (!parts.length) throw new WarehouseError('scope_invalid', `a replace of ${plan.info.name} needs a scope`);
  return { sql: parts.join(' AND '), params };
}

/** The type a scope column's values are cast to; the column must exist and hold no list. */
function scopeColumnType(plan: TablePlan, column: string): string {
  const index = plan.columnNames.indexOf(column);
  if (index < 0) {
    throw new WarehouseError(
      'unknown_column',
      `table ${plan.info.name} has no column "${column}" (used in a replace scope)`,
    );
  }
  const dataType = plan.columnTypes[index]!;
  if (dataType.endsWith('[]')) {
    throw new WarehouseError('scope_invalid', `${plan.info.name}.${column} is a list and cannot scope a replace`);
  }
  return castTypeOf(dataType);
}

/** Records an attempt beside the better state a slice keeps (`SliceBatch.attemptOnly`). */
async function recordAttempt(connection: DuckDBConnection, batch: SliceBatch, now: Date): Promise<void> {
  const state = batch.state;
  const at = now.toISOString();
  const result = await runPrepared(
    connection,
    `UPDATE _sync_state SET last_attempt_status = $4, last_attempt_at = CAST($5 AS TIMESTAMPTZ), last_attempt_run_id = $6,
       last_attempt_error = CAST($7 AS VARCHAR), last_attempt_error_code = CAST($8 AS VARCHAR),
       last_attempt_request_id = CAST($9 AS VARCHAR), last_attempt_attempts = CAST($10 AS INTEGER)
     WHERE brand_id = CAST($1 AS BIGINT) AND stream = $2 AND slice_key = $3`,
    [
      batch.brandId,
      batch.stream,
      batch.sliceKey,
      state.status,
      at,
      batch.runId,
      state.lastError,
      state.errorCode ?? null,
      state.requestId ?? null,
      state.attempts,
    ],
  );
  if (result.rowsChanged === 0) {
    throw new WarehouseError(
      'row_invalid',
      `slice ${batch.brandId}/${batch.stream}/${batch.sliceKey} has no state to record an attempt beside`,
    );
  }
}

const STATE_COLUMNS = 15;

/**
 * Upserts the `_sync_state` rows of the slices in one statement: an INSERT ... ON CONFLICT has a fixed cost larger
 * than the rest of a small slice's load, so the slices of one transaction share it.
 */
async function upsertSliceStates(
  connection: DuckDBConnection,
  batches: readonly SliceBatch[],
  now: Date,
): Promise<void> {
  if (!batches.length) return;
  const at = now.toISOString();
  const params: DuckDBValue[] = [];
  const rows = batches.map((batch, index) => {
    const state = batch.state;
    params.push(
      batch.brandId,
      batch.stream,
      batch.sliceKey,
      batch.day,
      state.status,
      state.rows,
      state.totalRows,
      state.attempts,
      state.requests,
      state.lastError,
      state.errorCode ?? null,
      state.requestId ?? null,
      batch.runId,
      at,
      batch.readWith ?? null,
    );
    const $ = (n: number) => `$${index * STATE_COLUMNS + n}`;
    return `(CAST(${$(1)} AS BIGINT), CAST(${$(2)} AS VARCHAR), CAST(${$(3)} AS VARCHAR), CAST(${$(4)} AS DATE), CAST(${$(5)} AS VARCHAR),
             CAST(${$(6)} AS BIGINT), CAST(${$(7)} AS BIGINT), CAST(${$(8)} AS INTEGER), CAST(${$(9)} AS INTEGER), CAST(${$(10)} AS VARCHAR),
             CAST(${$(11)} AS VARCHAR), CAST(${$(12)} AS VARCHAR), CAST(${$(13)} AS VARCHAR),
             CASE WHEN ${$(5)} = 'complete' THEN CAST(${$(14)} AS TIMESTAMPTZ) END, CAST(${$(14)} AS TIMESTAMPTZ),
             CAST(${$(5)} AS VARCHAR), CAST(${$(14)} AS TIMESTAMPTZ), CAST(${$(13)} AS VARCHAR), CAST(${$(10)} AS VARCHAR), CAST(${$(11)} AS VARCHAR),
             CAST(${$(12)} AS VARCHAR), CAST(${$(8)} AS INTEGER), CAST(${$(15)} AS VARCHAR))`;
  });
  await runPrepared(
    connection,
    `INSERT INTO _sync_state (brand_id, stream, slice_key, "day", status, "rows", total_rows, attempts, requests,
                              last_error, error_code, request_id, run_id, completed_at, updated_at,
                              last_attempt_status, last_attempt_at, last_attempt_run_id, last_attempt_error,
                              last_attempt_error_code, last_attempt_request_id, last_attempt_attempts, read_with)
     VALUES ${rows.join(',\n            ')}
     ON CONFLICT (brand_id, stream, slice_key) DO UPDATE SET
       "day" = EXCLUDED."day", status = EXCLUDED.status, "rows" = EXCLUDED."rows", total_rows = EXCLUDED.total_rows,
       attempts = EXCLUDED.attempts, requests = EXCLUDED.requests, last_error = EXCLUDED.last_error,
       error_code = EXCLUDED.error_code, request_id = EXCLUDED.request_id, run_id = EXCLUDED.run_id,
       completed_at = coalesce(EXCLUDED.completed_at, _sync_state.completed_at), updated_at = EXCLUDED.updated_at,
       last_attempt_status = EXCLUDED.last_attempt_status, last_attempt_at = EXCLUDED.last_attempt_at,
       last_attempt_run_id = EXCLUDED.last_attempt_run_id, last_attempt_error = EXCLUDED.last_attempt_error,
       last_attempt_error_code = EXCLUDED.last_attempt_error_code, last_attempt_request_id = EXCLUDED.last_attempt_request_id,
       last_attempt_attempts = EXCLUDED.last_attempt_attempts,
       -- A failed load leaves the rows of the read before it, and so the settings they were read with.
       read_with = CASE WHEN EXCLUDED.status = 'failed' THEN _sync_state.read_with ELSE EXCLUDED.read_with END`,
    params,
  );
}

/** Adds the slices to their runs' counters: one statement per run, however many of its slices the transaction holds. */
async function addRunCounters(
  connection: DuckDBConnection,
  batches: readonly SliceBatch[],
  results: readonly LoadResult[],
): Promise<void> {
  const byRun = new Map<string, RunCounters>();
  for (const [position, batch] of batches.entries()) {
    const sums = byRun.get(batch.runId) ?? {
      slices: 0,
      requests: 0,
      rows: 0,
      rejects: 0,
      errors: 0,
      retries: 0,
      rateLimited: 0,
    };
    byRun.set(batch.runId, sums);
    sums.slices += 1;
    sums.requests += batch.state.requests;
    sums.rows += results[position]!.rowsWritten;
    sums.rejects += batch.rejects.length;
    sums.errors += batch.state.status === 'failed' ? 1 : 0;
    sums.retries += batch.state.retries ?? 0;
    sums.rateLimited += batch.state.rateLimited ?? 0;
  }
  for (const [runId, sums] of byRun) {
    await runPrepared(
      connection,
      `INSERT INTO _sync_runs (run_id, slices, requests, "rows", rejects, errors, retries, rate_limited)
       VALUES ($1, CAST($2 AS BIGINT), CAST($3 AS BIGINT), CAST($4 AS BIGINT), CAST($5 AS BIGINT), CAST($6 AS BIGINT), CAST($7 AS BIGINT), CAST($8 AS BIGINT))
       ON CONFLICT (run_id) DO UPDATE SET
         slices = _sync_runs.slices + EXCLUDED.slices, requests = _sync_runs.requests + EXCLUDED.requests,
         "rows" = _sync_runs."rows" + EXCLUDED."rows", rejects = _sync_runs.rejects + EXCLUDED.rejects,
         errors = _sync_runs.errors + EXCLUDED.errors, retries = _sync_runs.retries + EXCLUDED.retries,
         rate_limited = _sync_runs.rate_limited + EXCLUDED.rate_limited`,
      [runId, sums.slices, sums.requests, sums.rows, sums.rejects, sums.errors, sums.retries, sums.rateLimited],
    );
  }
}
